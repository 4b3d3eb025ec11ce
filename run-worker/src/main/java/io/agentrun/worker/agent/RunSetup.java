package io.agentrun.worker.agent;

import io.agentrun.worker.context.RunContexts;
import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.command.RunCommand;
import io.agentrun.model.thread.ChatMessage;
import java.util.List;

/** Everything a run starts from: the command, the agent as configured now, the thread's history, its contexts. */
public record RunSetup(RunCommand command, AgentDefinition agent, List<ChatMessage> history, RunContexts contexts) {

    public RunSetup {
        history = List.copyOf(history);
    }
}
