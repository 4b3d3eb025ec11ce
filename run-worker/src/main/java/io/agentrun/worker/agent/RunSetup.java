package io.agentrun.worker.agent;

import io.agentrun.worker.context.RunContexts;
import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.command.RunCommand;
import io.agentrun.model.thread.ChatMessage;
import io.agentrun.worker.tool.Tool;
import io.agentrun.worker.tool.ToolRegistry;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Everything a run starts from: the command, the agent as configured now, the thread's history, its contexts, the
 * tools of its MCP servers (listed when the run started), and — for a run that paused for a person's decision — where
 * it goes on from.
 */
public record RunSetup(RunCommand command, AgentDefinition agent, List<ChatMessage> history, RunContexts contexts,
        List<Tool> mcpTools, @Nullable Resume resume) {

    public RunSetup {
        history = List.copyOf(history);
        mcpTools = List.copyOf(mcpTools);
    }

    /** A run whose agent uses no MCP server, from its start. */
    public RunSetup(RunCommand command, AgentDefinition agent, List<ChatMessage> history, RunContexts contexts) {
        this(command, agent, history, contexts, List.of(), null);
    }

    /** The tool the model calls by {@code name}: the agent's MCP tools first (its names are one namespace). */
    public Optional<Tool> tool(String name, ToolRegistry builtIn) {
        return mcpTools.stream().filter(tool -> tool.name().equals(name)).findFirst().or(() -> builtIn.find(name));
    }
}
