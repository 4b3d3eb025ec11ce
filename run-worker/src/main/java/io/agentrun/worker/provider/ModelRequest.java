package io.agentrun.worker.provider;

import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.command.ResponseFormat;
import io.agentrun.worker.cancel.CancelToken;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One model step: the agent, the system prompt (instructions and inlined contexts), the conversation so
 * far, the tools of the run, whether the model may still call them, and the run's cancellation. Tools stay
 * declared once their budget is spent ({@code mayCallTools} false): providers refuse a conversation holding
 * tool calls and results without the tools it names. {@code responseFormat}, when the run asked for an answer in a
 * JSON Schema: a provider with a native mode for it uses it (the system prompt asks for it in every case).
 */
public record ModelRequest(AgentDefinition agent, String system, List<ModelMessage> messages, List<ToolSpec> tools,
        boolean mayCallTools, CancelToken cancel, @Nullable ResponseFormat responseFormat) {

    /** A step whose answer is text. */
    public ModelRequest(AgentDefinition agent, String system, List<ModelMessage> messages, List<ToolSpec> tools,
            boolean mayCallTools, CancelToken cancel) {
        this(agent, system, messages, tools, mayCallTools, cancel, null);
    }

    public ModelRequest {
        messages = List.copyOf(messages);
        tools = List.copyOf(tools);
    }
}
