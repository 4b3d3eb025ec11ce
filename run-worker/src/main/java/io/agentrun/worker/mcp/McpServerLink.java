package io.agentrun.worker.mcp;

import io.agentrun.model.mcp.McpServerView;
import io.agentrun.platform.retry.BackOffPolicy;
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
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * This worker's link to one registered MCP server (one version of its registration): its current session — the SDK's
 * client over its own guarded transport — and the server's tool list, asked again once it is {@code tool-list-ttl} old.
 * Shared by every run of the project that uses the server; calls go out concurrently.
 *
 * <p>A session is begun on its first request and never begun again: one the server forgot (it restarted, or expired the
 * session) or could not be reached on is replaced whole, by the first request that met the loss, and every request
 * sent on it is sent again on the new one. (The SDK's own way — resetting one client's initialization while other
 * requests read it — failed requests in flight with a plain "session terminated", and raced: seen under load.)
 */
final class McpServerLink implements AutoCloseable {

    /** Pages of a tool list read at most: a server that pages forever does not hold a run's start. */
    private static final int MAX_PAGES = 20;


    private final McpServerView server;
    private final Map<String, String> headers;
    private final Supplier<GuardedHttpTransport> transports;
    private final Duration connectTimeout;
    private final Object replacing = new Object();
    private volatile Session session;
    private final ReentrantLock refreshing = new ReentrantLock();
    private volatile @Nullable Listing listing;

    /** One MCP session: the SDK's client over a transport of its own. */
    private record Session(McpSyncClient client, GuardedHttpTransport transport) {
    }

    /** A tool list and when it was read. */
    record Listing(List<McpSchema.Tool> tools, Instant readAt) {
    }

    /**
     * @param headers    the registration's headers the transports send (secrets: compared, never shown)
     * @param transports a new transport (no session yet) for each session
     */
    McpServerLink(McpServerView server, Map<String, String> headers, Supplier<GuardedHttpTransport> transports, Duration connectTimeout) {
        this.server = server;
        this.headers = Map.copyOf(headers);
        this.transports = transports;
        this.connectTimeout = connectTimeout;
        this.session = open();
    }

    private Session open() {
        GuardedHttpTransport transport = transports.get();
        McpSyncClient client = McpClient.sync(transport)
                .requestTimeout(server.callTimeout())
                .initializationTimeout(connectTimeout.plus(server.callTimeout()))
                .clientInfo(new McpSchema.Implementation("agentrun", "1"))
                .build();
        return new Session(client, transport);
    }

    McpServerView server() {
        return server;
    }

    Map<String, String> headers() {
        return headers;
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
            McpSchema.ListToolsResult result = request(cursor == null ? McpSyncClient::listTools : listNext(cursor));
            tools.addAll(result.tools());
            cursor = result.nextCursor();
            if (cursor == null || cursor.isEmpty()) {
                break;
            }
        }
        return List.copyOf(tools);
    }

    private static Function<McpSyncClient, McpSchema.ListToolsResult> listNext(String cursor) {
        return client -> client.listTools(cursor);
    }

    /** The meta key MCP calls carry their idempotency key under. */
    static final String IDEMPOTENCY_KEY = "io.agentrun/idempotency-key";

    McpSchema.CallToolResult call(String tool, Map<String, Object> arguments, String idempotencyKey) throws ToolException {
        return request(client -> client.callTool(new McpSchema.CallToolRequest(tool, arguments, Map.of(IDEMPOTENCY_KEY, idempotencyKey))));
    }

    /**
     * One request, with what can go wrong said for the model and the client: the server's own error, no answer in time,
     * a transport failure. A request whose session was lost — the server forgot it, or could not be reached or broke
     * the connection before its answer (restarting) — is sent again on a new session, after the services' back-off
     * ({@link BackOffPolicy#STANDARD}), until its call timeout has passed. A tool call carries the same idempotency key
     * every time.
     */
    private <T> T request(Function<McpSyncClient, T> request) throws ToolException {
        try {
            return BackOffPolicy.STANDARD.untilAnswered(() -> attempt(request), server.callTimeout(), SessionLost.class::isInstance);
        } catch (McpError e) {
            throw new ToolException("MCP server '" + server.id() + "' refused the request: " + e.getMessage());
        } catch (RuntimeException e) {
            Throwable failure = e instanceof SessionLost lost ? lost.getCause() : e;
            if (Thread.currentThread().isInterrupted()) {
                throw new ToolException("MCP server '" + server.id() + "': interrupted while waiting to call it again");
            }
            if (causedBy(failure, TimeoutException.class::isInstance)) {
                throw new ToolException("MCP server '" + server.id() + "' did not answer within " + server.callTimeout().toSeconds() + " s");
            }
            throw new ToolException("MCP server '" + server.id() + "' failed: " + rootMessage(failure));
        }
    }

    /** One attempt on the current session; a failure that lost the session comes out as {@link SessionLost}. */
    private <T> T attempt(Function<McpSyncClient, T> request) {
        Session used = session;
        try {
            return request.apply(used.client());
        } catch (McpError e) {
            throw e;
        } catch (RuntimeException e) {
            boolean lost = lost(e);
            if (lost) {
                replace(used);
            }
            // A request out on a session replaced meanwhile failed with it, whatever it says.
            if (lost || used != session) {
                throw new SessionLost(e);
            }
            throw e;
        }
    }

    /** A request failed because its session was lost: worth sending again on the new one. */
    private static final class SessionLost extends RuntimeException {
        SessionLost(RuntimeException cause) {
            super(cause.getMessage(), cause, false, false);
        }
    }

    /** The server forgot the session (its 404), or could not be reached or broke the connection mid-answer, for now. */
    private static boolean lost(Throwable failure) {
        return causedBy(failure, cause -> cause instanceof McpTransportSessionNotFoundException
                || (cause instanceof GuardedHttpTransport.ServerUnreachable unreachable && unreachable.passing()));
    }

    /**
     * The first request to meet the loss of {@code lost} puts a new session in its place; the others find it there. The
     * old one is left, not closed: closing would fail the requests still out on it, which may yet be answered (a passing
     * outage of one connection), and ending it at the server takes a server that remembers it.
     */
    private void replace(Session lost) {
        synchronized (replacing) {
            if (session == lost) {
                lost.transport().forget();
                session = open();
            }
        }
    }

    private static boolean causedBy(Throwable failure, Predicate<Throwable> which) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (which.test(cause)) {
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

    /**
     * At once: a link is closed inside the toolbox's map update, where waiting on the server would hold others up.
     *
     * @param endSession whether to end the session at the server (a {@code DELETE} with the headers it was begun with);
     *                   not when those headers were replaced, as revoked ones often are: the server expires it
     */
    void close(boolean endSession) {
        Session current = session;
        if (!endSession) {
            current.transport().forget();
        }
        current.client().close();
    }

    @Override
    public void close() {
        close(true);
    }
}
