package io.agentrun.platform.mcp;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.mcp.McpServerView;
import io.agentrun.model.mcp.NewMcpServer;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.secret.SecretBox;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.type.TypeReference;

/**
 * A project's MCP servers: {@code ar:project:<id>:mcp-servers}, server id → {@link Stored} JSON (the view and the
 * sealed headers). One field per server, so a worker reads all the servers of an agent in one {@code HMGET}.
 */
public final class McpServerStore {

    private static final TypeReference<Map<String, String>> HEADERS = new TypeReference<>() { };

    private final RedisConnections redis;
    private final JsonCodec codec;
    private final SecretBox box;
    private final Clock clock;

    public McpServerStore(RedisConnections redis, JsonCodec codec, SecretBox box, Clock clock) {
        this.redis = redis;
        this.codec = codec;
        this.box = box;
        this.clock = clock;
    }

    /** What is kept per server: the view, and its headers sealed ({@code ""} when it has none). */
    record Stored(McpServerView server, String sealedHeaders) {
    }

    /** A server as a worker calls it: with its headers opened. Never logged, never in an event. */
    public record Connection(McpServerView server, Map<String, String> headers) {

        public Connection {
            headers = Map.copyOf(headers);
        }

        @Override
        public String toString() {
            return "Connection[" + server.id() + ", " + server.url() + ", headers " + headers.keySet() + "]";
        }
    }

    /** Whether headers can be stored here (a secret key is configured). */
    public boolean canSealHeaders() {
        return box.hasKey();
    }

    /** @return the new server; empty when the project has one of that id already */
    public Optional<McpServerView> create(String projectId, NewMcpServer request) {
        request.requireForCreation();
        Instant now = clock.instant();
        Map<String, String> headers = request.headers() == null ? Map.of() : request.headers();
        McpServerView server = new McpServerView(request.id(), request.url(), sortedNames(headers), request.allowedTools(),
                request.callTimeout() != null ? request.callTimeout() : NewMcpServer.DEFAULT_CALL_TIMEOUT,
                request.description() != null ? request.description() : "", now, now, 1);
        boolean created = redis.sync().hsetnx(RedisKeys.mcpServers(projectId), server.id(), codec.write(new Stored(server, seal(headers))));
        return created ? Optional.of(server) : Optional.empty();
    }

    public List<McpServerView> list(String projectId) {
        return redis.sync().hvals(RedisKeys.mcpServers(projectId)).stream().map(json -> codec.read(json, Stored.class).server())
                .sorted(Comparator.comparing(McpServerView::id)).toList();
    }

    public Optional<McpServerView> find(String projectId, String serverId) {
        return stored(projectId, serverId).map(Stored::server);
    }

    /**
     * @return the changed server; empty when there is none of that id. Two changes at once: the last one wins whole
     *     (the admin API is an operator's, not a hot path).
     */
    public Optional<McpServerView> update(String projectId, String serverId, NewMcpServer change) {
        return stored(projectId, serverId).map(before -> {
            McpServerView was = before.server();
            String sealed = change.headers() != null ? seal(change.headers()) : before.sealedHeaders();
            McpServerView changed = new McpServerView(was.id(), change.url() != null ? change.url() : was.url(),
                    change.headers() != null ? sortedNames(change.headers()) : was.headerNames(),
                    change.allowedTools() != null ? change.allowedTools() : was.allowedTools(),
                    change.callTimeout() != null ? change.callTimeout() : was.callTimeout(),
                    change.description() != null ? change.description() : was.description(), was.createdAt(), clock.instant(),
                    was.version() + 1);
            redis.sync().hset(RedisKeys.mcpServers(projectId), serverId, codec.write(new Stored(changed, sealed)));
            return changed;
        });
    }

    public boolean delete(String projectId, String serverId) {
        return redis.sync().hdel(RedisKeys.mcpServers(projectId), serverId) > 0;
    }

    /** The servers of {@code serverIds} that exist, with their headers opened, in one round trip. */
    public List<Connection> connections(String projectId, List<String> serverIds) {
        if (serverIds.isEmpty()) {
            return List.of();
        }
        List<Connection> found = new ArrayList<>();
        redis.sync().hmget(RedisKeys.mcpServers(projectId), serverIds.toArray(String[]::new)).forEach(value -> {
            if (value.hasValue()) {
                Stored stored = codec.read(value.getValue(), Stored.class);
                found.add(new Connection(stored.server(), open(stored.sealedHeaders())));
            }
        });
        return found;
    }

    private Optional<Stored> stored(String projectId, String serverId) {
        return Optional.ofNullable(redis.sync().hget(RedisKeys.mcpServers(projectId), serverId)).map(json -> codec.read(json, Stored.class));
    }

    private String seal(Map<String, String> headers) {
        return headers.isEmpty() ? "" : box.seal(codec.write(new TreeMap<>(headers)));
    }

    private Map<String, String> open(@Nullable String sealed) {
        return sealed == null || sealed.isEmpty() ? Map.of() : codec.mapper().readValue(box.open(sealed), HEADERS);
    }

    private static List<String> sortedNames(Map<String, String> headers) {
        return headers.keySet().stream().sorted(String.CASE_INSENSITIVE_ORDER).toList();
    }
}
