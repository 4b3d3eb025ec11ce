package io.agentrun.worker.model;

import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.command.RunInput;
import io.agentrun.model.thread.ChatMessage;
import io.agentrun.worker.cancel.CancelToken;
import java.util.List;

/**
 * One model turn: the agent, the thread's history before this turn, and this turn's input.
 */
public record ModelRequest(AgentDefinition agent, List<ChatMessage> history, RunInput input, CancelToken cancel) {

    public ModelRequest {
        history = List.copyOf(history);
    }
}
