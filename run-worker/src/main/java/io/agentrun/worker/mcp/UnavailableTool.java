package io.agentrun.worker.mcp;

import io.agentrun.worker.tool.Tool;
import io.agentrun.worker.tool.ToolException;
import io.agentrun.worker.tool.ToolInvocation;
import tools.jackson.databind.JsonNode;

/**
 * A tool an agent names that its MCP server cannot give now (not registered, not reachable, not listed): still offered,
 * saying why, so the model can tell the user, and a call of it ends in a {@code tool_end} error rather than a run that
 * waits or fails.
 */
record UnavailableTool(String name, String reason, JsonNode parameters) implements Tool {

    @Override
    public String description() {
        return "Unavailable now: " + reason;
    }

    @Override
    public String execute(ToolInvocation invocation) throws ToolException {
        throw new ToolException(reason);
    }
}
