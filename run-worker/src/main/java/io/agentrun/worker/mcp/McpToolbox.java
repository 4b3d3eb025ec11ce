package io.agentrun.worker.mcp;

import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.mcp.McpToolset;
import io.agentrun.platform.jsonschema.AnswerSchemas;
import io.agentrun.platform.jsonschema.InvalidSchemaException;
import io.agentrun.platform.mcp.McpServerStore;
import io.agentrun.platform.mcp.McpSettings;
import io.agentrun.worker.tool.Tool;
import io.agentrun.worker.tool.ToolException;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.core5.util.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.scheduler.Scheduler;
import tools.jackson.databind.JsonNode;

/**
 * The MCP tools of a run: for each server the agent names, the registration read from Redis (one round trip for all),
 * this worker's link to it (made again when the registration changed), and its tool list (cached for
 * {@code tool-list-ttl}); of those, the tools the agent lists and the registration allows. A tool that cannot be had
 * is offered as unavailable, with the reason.
 */
public final class McpToolbox implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(McpToolbox.class);

    private final McpServerStore store;
    private final McpSettings settings;
    private final CloseableHttpClient http;
    private final McpJsonMapper json;
    private final Scheduler scheduler;
    private final AnswerSchemas schemas;
    private final JsonCodec codec;
    private final Clock clock;
    private final Map<String, McpServerLink> links = new ConcurrentHashMap<>();

    McpToolbox(McpServerStore store, McpSettings settings, CloseableHttpClient http, McpJsonMapper json, Scheduler scheduler,
            AnswerSchemas schemas, JsonCodec codec, Clock clock) {
        this.store = store;
        this.settings = settings;
        this.http = http;
        this.json = json;
        this.scheduler = scheduler;
        this.schemas = schemas;
        this.codec = codec;
        this.clock = clock;
    }

    /** The tools of the project's MCP servers that {@code agent} may call, in the order it lists them. */
    public List<Tool> toolsFor(String projectId, AgentDefinition agent) {
        if (!agent.usesMcp()) {
            return List.of();
        }
        Map<String, McpServerStore.Connection> registered = store.connections(projectId,
                agent.mcpServers().stream().map(McpToolset::server).toList()).stream()
                .collect(Collectors.toMap(connection -> connection.server().id(), Function.identity()));
        List<Tool> tools = new ArrayList<>();
        for (McpToolset toolset : agent.mcpServers()) {
            McpServerStore.Connection connection = registered.get(toolset.server());
            if (connection == null) {
                unavailable(tools, toolset, "the project has no MCP server '" + toolset.server() + "' registered");
                continue;
            }
            McpServerLink link = link(projectId, connection);
            Map<String, McpSchema.Tool> listed;
            try {
                listed = link.tools(settings.toolListTtl(), clock.instant()).tools().stream()
                        .collect(Collectors.toMap(McpSchema.Tool::name, Function.identity(), (first, second) -> first));
            } catch (ToolException e) {
                log.warn("project {}: the tools of MCP server {} could not be listed: {}", projectId, toolset.server(), e.getMessage());
                unavailable(tools, toolset, e.getMessage());
                continue;
            }
            for (String name : toolset.tools()) {
                tools.add(tool(toolset.server(), name, connection, listed.get(name), link));
            }
        }
        return tools;
    }

    private Tool tool(String serverId, String name, McpServerStore.Connection connection, McpSchema.Tool listed, McpServerLink link) {
        if (!connection.server().allows(name)) {
            return unavailable(name, "MCP server '" + serverId + "' is registered without '" + name + "' in its allowed_tools");
        }
        if (listed == null) {
            return unavailable(name, "MCP server '" + serverId + "' does not list a tool '" + name + "'");
        }
        JsonNode parameters = codec.mapper().valueToTree(listed.inputSchema() == null ? Map.of("type", "object") : listed.inputSchema());
        try {
            return new McpTool(serverId, listed, parameters, schemas.compile(parameters), link, codec.mapper());
        } catch (InvalidSchemaException e) {
            return unavailable(name, "the input schema MCP server '" + serverId + "' gives for '" + name + "' cannot be used: " + e.getMessage());
        }
    }

    private McpServerLink link(String projectId, McpServerStore.Connection connection) {
        String key = projectId + "/" + connection.server().id();
        return links.compute(key, (ignored, existing) -> {
            if (existing != null && existing.server().version() == connection.server().version()
                    && existing.server().updatedAt().equals(connection.server().updatedAt())) {
                return existing;
            }
            if (existing != null) {
                // The registration changed (url, headers, timeout): a new session with the new one. The old session is
                // ended with the headers it was begun with, unless those are what changed.
                existing.close(existing.headers().equals(connection.headers()));
            }
            Timeout answer = Timeout.of(connection.server().callTimeout().plus(settings.connectTimeout()));
            URI url = URI.create(connection.server().url());
            return new McpServerLink(connection.server(), connection.headers(), () -> new GuardedHttpTransport(http, url,
                    connection.headers(), json, settings.maxResponseBytes(), answer, scheduler), settings.connectTimeout());
        });
    }

    private void unavailable(List<Tool> tools, McpToolset toolset, String reason) {
        toolset.tools().forEach(name -> tools.add(unavailable(name, reason)));
    }

    private Tool unavailable(String name, String reason) {
        return new UnavailableTool(name, reason, codec.mapper().createObjectNode().put("type", "object"));
    }

    @Override
    public void close() throws java.io.IOException {
        links.values().forEach(McpServerLink::close);
        links.clear();
        http.close();
        scheduler.dispose();
    }
}
