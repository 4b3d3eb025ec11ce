package io.agentrun.worker.model;

import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.worker.cancel.CancelToken;
import java.util.List;

/**
 * One model step: the agent, the system prompt (instructions and inlined contexts), the conversation so
 * far, the tools of the run, whether the model may still call them, and the run's cancellation. Tools stay
 * declared once their budget is spent ({@code mayCallTools} false): providers refuse a conversation holding
 * tool calls and results without the tools it names.
 */
public record ModelRequest(AgentDefinition agent, String system, List<ModelMessage> messages, List<ToolSpec> tools,
        boolean mayCallTools, CancelToken cancel) {

    public ModelRequest {
        messages = List.copyOf(messages);
        tools = List.copyOf(tools);
    }
}
