package io.agentrun.worker.mcp;

import io.agentrun.model.mcp.McpServerView;
import io.agentrun.worker.tool.ToolException;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpTransportSessionNotFoundException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * This worker's session with one registered MCP server (one version of its registration): the SDK's client over the
 * guarded transport, and the server's tool list, asked again once it is {@code tool-list-ttl} old. Shared by every run
 * of the project that uses the server; calls go out concurrently.
 */
final class McpServerLink implements AutoCloseable {

    /** Pages of a tool list read at most: a server that pages forever does not hold a run's start. */
    private static final int MAX_PAGES = 20;

    private final McpServerView server;
    private final McpSyncClient client;
    private final ReentrantLock refreshing = new ReentrantLock();
    private volatile @Nullable Listing listing;

    /** A tool list and when it was read. */
    record Listing(List<McpSchema.Tool> tools, Instant readAt) {
    }

    McpServerLink(McpServerView server, GuardedHttpTransport transport, Duration connectTimeout) {
        this.server = server;
        this.client = McpClient.sync(transport)
                .requestTimeout(server.callTimeout())
                .initializationTimeout(connectTimeout.plus(server.callTimeout()))
                .clientInfo(new McpSchema.Implementation("agentrun", "1"))
                .build();
    }

    McpServerView server() {
        return server;
    }

    Duration callTimeout() {
        return server.callTimeout();
    }

    /**
     * The server's tools: the list read within {@code ttl}, else read now. When reading fails and an older list exists,
     * that one serves until the next try; the first read's failure is thrown.
     */
    Listing tools(Duration ttl, Instant now) throws ToolException {
        Listing known = listing;
        if (known != null && known.readAt().plus(ttl).isAfter(now)) {
            return known;
        }
        if (known != null && !refreshing.tryLock()) {
            return known; // another run is reading it now: this one starts with the list it has
        }
        if (known == null) {
            refreshing.lock();
        }
        try {
            Listing current = listing;
            if (current != null && current.readAt().plus(ttl).isAfter(now)) {
                return current;
            }
            try {
                Listing fresh = new Listing(readAll(), now);
                listing = fresh;
                return fresh;
            } catch (ToolException e) {
                if (current == null) {
                    throw e;
                }
                return current;
            }
        } finally {
            refreshing.unlock();
        }
    }

    private List<McpSchema.Tool> readAll() throws ToolException {
        List<McpSchema.Tool> tools = new ArrayList<>();
        String cursor = null;
        for (int page = 0; page < MAX_PAGES; page++) {
            McpSchema.ListToolsResult result = request(cursor == null ? client::listTools : listNext(cursor));
            tools.addAll(result.tools());
            cursor = result.nextCursor();
            if (cursor == null || cursor.isEmpty()) {
                break;
            }
        }
        return List.copyOf(tools);
    }

    private Supplier<McpSchema.ListToolsResult> listNext(String cursor) {
        return () -> client.listTools(cursor);
    }

    /** The meta key MCP calls carry their idempotency key under. */
    static final String IDEMPOTENCY_KEY = "io.agentrun/idempotency-key";

    McpSchema.CallToolResult call(String tool, Map<String, Object> arguments, String idempotencyKey) throws ToolException {
        return request(() -> client.callTool(new McpSchema.CallToolRequest(tool, arguments, Map.of(IDEMPOTENCY_KEY, idempotencyKey))));
    }

    /**
     * One request, with what can go wrong said for the model and the client: the server's own error, no answer in time,
     * a transport failure. A session the server forgot is begun again once.
     */
    private <T> T request(Supplier<T> request) throws ToolException {
        for (int attempt = 1; ; attempt++) {
            try {
                return request.get();
            } catch (McpError e) {
                throw new ToolException("MCP server '" + server.id() + "' refused the request: " + e.getMessage());
            } catch (RuntimeException e) {
                if (attempt == 1 && causedBy(e, McpTransportSessionNotFoundException.class)) {
                    continue;
                }
                if (causedBy(e, TimeoutException.class)) {
                    throw new ToolException("MCP server '" + server.id() + "' did not answer within " + server.callTimeout().toSeconds() + " s");
                }
                throw new ToolException("MCP server '" + server.id() + "' failed: " + rootMessage(e));
            }
        }
    }

    private static boolean causedBy(Throwable failure, Class<? extends Throwable> type) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return true;
            }
        }
        return false;
    }

    private static String rootMessage(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    }

    /** At once: a link is closed inside the toolbox's map update, where waiting on the server would hold others up. */
    @Override
    public void close() {
        client.close();
    }
}
