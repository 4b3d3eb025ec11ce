package io.agentrun.model.mcp;

import java.util.List;
import java.util.regex.Pattern;

/**
 * An agent's use of one registered MCP server: the server's id and the tools of it the agent's model is offered (by
 * the names the server lists them under; each must be in the server's {@code allowed_tools}, if it has one).
 */
public record McpToolset(String server, List<String> tools) {

    private static final Pattern SERVER = Pattern.compile("[a-z][a-z0-9_-]{0,31}");

    public McpToolset {
        if (server == null || !SERVER.matcher(server).matches()) {
            throw new IllegalArgumentException("mcp_servers: server must name a registered MCP server (got " + (server == null ? "nothing" : "'" + server + "'") + ")");
        }
        tools = tools == null ? List.of() : List.copyOf(tools);
        if (tools.isEmpty()) {
            throw new IllegalArgumentException("mcp_servers: list the tools of '" + server + "' the agent may use");
        }
        for (String tool : tools) {
            if (tool == null || !NewMcpServer.TOOL_NAME.matcher(tool).matches()) {
                throw new IllegalArgumentException("mcp_servers: tool names of 1–64 letters, digits, '_' or '-' (in '" + server + "')");
            }
        }
    }
}
