package io.agentrun.model.mcp;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A registered MCP server as the admin API shows it: the names of its headers, never their values.
 *
 * @param allowedTools {@code null} = every tool the server lists
 * @param version      changes with every update; workers reconnect when it does
 */
public record McpServerView(String id, String url, List<String> headerNames, @Nullable List<String> allowedTools,
        Duration callTimeout, String description, Instant createdAt, Instant updatedAt, long version) {

    public McpServerView {
        headerNames = List.copyOf(headerNames);
        allowedTools = allowedTools == null ? null : List.copyOf(allowedTools);
    }

    public boolean allows(String tool) {
        return allowedTools == null || allowedTools.contains(tool);
    }
}
