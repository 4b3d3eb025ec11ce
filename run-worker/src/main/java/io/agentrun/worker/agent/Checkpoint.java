package io.agentrun.worker.agent;

import io.agentrun.model.event.Usage;
import io.agentrun.worker.provider.ModelMessage;
import io.agentrun.worker.provider.ThinkingBlock;
import io.agentrun.worker.provider.ToolCall;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What a paused run goes on from, as its {@code approval_required} carries it (JSON, in the event topic, so a rebuild
 * restores it too): the messages the run added to the conversation so far (the model's turns, tool results, a schema
 * retry), the tool calls of the paused turn still to run (the first is the one waiting for a decision), the tool-call
 * budget spent, the step, and the tokens spent. The conversation before the run (history, the question, its files) is
 * read again when it goes on, as at any start.
 */
record Checkpoint(int version, List<Message> messages, List<ToolCall> pending, Map<String, Integer> toolCalls, int toolCallsTotal,
        int step, boolean reshaped, Usage usage) {

    static final int VERSION = 1;

    Checkpoint {
        messages = List.copyOf(messages);
        pending = List.copyOf(pending);
        toolCalls = Map.copyOf(toolCalls);
    }

    /** One message, flat: {@code role} says which fields mean something. */
    record Message(String role, String text, List<ToolCall> toolCalls, List<ThinkingBlock> thinking, @Nullable String toolCallId,
            @Nullable String name, boolean isError) {

        static Message of(ModelMessage message) {
            return switch (message) {
                case ModelMessage.User user -> new Message("user", user.text(), List.of(), List.of(), null, null, false);
                case ModelMessage.Assistant assistant -> new Message("assistant", assistant.text(), assistant.toolCalls(), assistant.thinking(),
                        null, null, false);
                case ModelMessage.ToolResult result -> new Message("tool", result.output(), List.of(), List.of(), result.toolCallId(),
                        result.name(), result.isError());
            };
        }

        ModelMessage toModel() {
            return switch (role) {
                case "user" -> ModelMessage.User.text(text);
                case "assistant" -> new ModelMessage.Assistant(text, toolCalls == null ? List.of() : toolCalls,
                        thinking == null ? List.of() : thinking);
                case "tool" -> new ModelMessage.ToolResult(toolCallId, name, text, isError);
                default -> throw new IllegalStateException("a checkpoint message of role '" + role + "'");
            };
        }
    }
}
