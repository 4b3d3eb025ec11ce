package io.agentrun.worker.model;

import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.worker.cancel.CancelToken;
import java.util.List;

/**
 * One model step: the agent, the system prompt (instructions and inlined contexts), the conversation so
 * far, the tools the model may call now, and the run's cancellation.
 */
public record ModelRequest(AgentDefinition agent, String system, List<ModelMessage> messages, List<ToolSpec> tools,
        CancelToken cancel) {

    public ModelRequest {
        messages = List.copyOf(messages);
        tools = List.copyOf(tools);
    }
}
