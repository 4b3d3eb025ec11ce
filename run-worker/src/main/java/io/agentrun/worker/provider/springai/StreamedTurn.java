package io.agentrun.worker.provider.springai;

import io.agentrun.model.event.Usage;
import io.agentrun.worker.provider.ModelException;
import io.agentrun.worker.provider.ModelListener;
import io.agentrun.worker.provider.ModelTurn;
import io.agentrun.worker.provider.ThinkingBlock;
import io.agentrun.worker.provider.ToolCall;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;

/** A model step being streamed: reasoning and text passed on as they arrive, tool calls, usage and the finish kept. */
final class StreamedTurn {

    private final SpringAiProvider provider;
    private final ModelListener listener;
    private final StringBuilder text = new StringBuilder();
    private final StringBuilder thinking = new StringBuilder();
    private final List<ToolCall> toolCalls = new ArrayList<>();
    private final List<ThinkingBlock> signatures = new ArrayList<>();
    private Usage usage = Usage.NONE;
    private @Nullable String finish;

    StreamedTurn(SpringAiProvider provider, ModelListener listener) {
        this.provider = provider;
        this.listener = listener;
    }

    void add(ChatResponse response) {
        var reported = response.getMetadata().getUsage();
        if (reported != null && reported.getPromptTokens() != null && reported.getCompletionTokens() != null
                && reported.getPromptTokens() + reported.getCompletionTokens() > 0) {
            usage = new Usage(reported.getPromptTokens(), reported.getCompletionTokens());
        }
        response.getResults().forEach(this::add);
    }

    private void add(Generation generation) {
        AssistantMessage chunk = generation.getOutput();
        String thought = provider.thinking(chunk, thinking.toString());
        if (!thought.isEmpty()) {
            thinking.append(thought);
            listener.onThinking(thought);
        }
        String delta = chunk.getText();
        if (delta != null && !delta.isEmpty() && !provider.isThought(chunk)) {
            text.append(delta);
            listener.onTextDelta(delta);
        }
        if (chunk.getMetadata().get(SpringAiMessages.THOUGHT_SIGNATURES) instanceof List<?> signed) {
            signed.stream().filter(byte[].class::isInstance)
                    .forEach(signature -> signatures.add(new ThinkingBlock("", Base64.getEncoder().encodeToString((byte[]) signature))));
        }
        for (AssistantMessage.ToolCall call : chunk.getToolCalls()) {
            String id = call.id() == null || call.id().isEmpty() ? "call_" + toolCalls.size() : call.id();
            toolCalls.add(new ToolCall(id, call.name(), call.arguments() == null ? "{}" : call.arguments()));
        }
        String reason = generation.getMetadata().getFinishReason();
        if (reason != null && !reason.isEmpty()) {
            finish = reason.toLowerCase(Locale.ROOT);
        }
    }

    /** @throws ModelException when the stream ended without the provider saying the step was finished */
    ModelTurn complete() {
        if (finish == null) {
            throw new ModelException("connection_error", provider.name() + " stream ended before it was complete", true);
        }
        List<ThinkingBlock> reasoning = new ArrayList<>(signatures);
        if (!thinking.isEmpty()) {
            reasoning.addFirst(new ThinkingBlock(thinking.toString(), null));
        }
        return new ModelTurn(text.toString(), toolCalls, reasoning, usage, finish);
    }
}
