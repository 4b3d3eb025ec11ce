package io.agentrun.worker.provider.springai;

import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.worker.provider.ModelException;
import io.agentrun.worker.provider.ModelRequest;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.tool.ToolCallback;

/** What differs between the providers on Spring AI: their client, a step's options, where reasoning is, their errors. */
public interface SpringAiProvider {

    /** The {@code provider} agents name. */
    String name();

    /** A client for the agent's endpoint, with {@code key} ({@code null}: none); it must not retry on its own. */
    org.springframework.ai.chat.model.ChatModel client(AgentDefinition agent, @Nullable String key);

    /** A step's options: the model, its settings, the tools to declare, the answer's schema. */
    ChatOptions options(ModelRequest request, List<ToolCallback> tools);

    /** The reasoning a streamed chunk adds, given the reasoning streamed before it; empty when none. */
    String thinking(AssistantMessage chunk, String soFar);

    /** Whether the chunk's text is reasoning, not answer (Gemini's thought parts). */
    default boolean isThought(AssistantMessage chunk) {
        return false;
    }

    /** A tool's output as the provider's client takes it back. */
    default String toolResult(String output) {
        return output;
    }

    /** The client's failure as what the run loop can act on; the message never holds {@code key}. */
    ModelException failure(RuntimeException error, @Nullable String key);

    /** Refuses, before anything is sent, a step this provider cannot take (a file type it does not read). */
    default void check(ModelRequest request) {
    }
}
