package io.agentrun.worker.mcp;

import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpTransportException;
import io.modelcontextprotocol.spec.McpTransportSessionNotFoundException;
import io.modelcontextprotocol.spec.ProtocolVersions;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.hc.client5.http.classic.methods.HttpDelete;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.apache.hc.core5.util.Timeout;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * MCP's Streamable HTTP transport (client side) on Apache HttpClient, whose DNS resolver is the destination guard: the
 * address connected to is the one the guard checked. (The SDK's own transport is on the JDK's {@code HttpClient}, which
 * resolves names itself, so a name could be checked and then resolved again to a private address.) Each message is one
 * POST; its answer — JSON, or an SSE stream of messages — is read within {@code maxResponseBytes} and handed to the
 * client session. No GET stream is opened: agentrun asks servers nothing they would need to call back for (no
 * sampling, roots or elicitation), and the specification lets a client go without it.
 */
final class GuardedHttpTransport implements McpClientTransport {

    private static final String SESSION = "Mcp-Session-Id";

    private final CloseableHttpClient http;
    private final URI endpoint;
    private final Map<String, String> headers;
    private final McpJsonMapper json;
    private final int maxResponseBytes;
    private final RequestConfig requests;
    private final Scheduler scheduler;
    private final AtomicReference<@Nullable String> session = new AtomicReference<>();
    private volatile Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler = Function.identity();
    private volatile Consumer<Throwable> exceptionHandler = t -> { };

    /**
     * @param headers        the registration's headers (secrets: never logged, never in an exception)
     * @param answerTimeout  how long a request may wait for the server's next bytes
     */
    GuardedHttpTransport(CloseableHttpClient http, URI endpoint, Map<String, String> headers, McpJsonMapper json,
            int maxResponseBytes, Timeout answerTimeout, Scheduler scheduler) {
        this.http = http;
        this.endpoint = endpoint;
        this.headers = Map.copyOf(headers);
        this.json = json;
        this.maxResponseBytes = maxResponseBytes;
        this.requests = RequestConfig.custom().setResponseTimeout(answerTimeout).setRedirectsEnabled(false).build();
        this.scheduler = scheduler;
    }

    @Override
    public Mono<Void> connect(Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        this.handler = handler;
        return Mono.empty();
    }

    @Override
    public void setExceptionHandler(Consumer<Throwable> handler) {
        this.exceptionHandler = handler;
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
        return Mono.deferContextual(context -> {
            String version = context.getOrDefault(McpAsyncClient.NEGOTIATED_PROTOCOL_VERSION, ProtocolVersions.MCP_2025_11_25);
            return Mono.<Void>fromRunnable(() -> post(message, version)).subscribeOn(scheduler);
        });
    }

    private void post(McpSchema.JSONRPCMessage message, String protocolVersion) {
        HttpPost post = new HttpPost(endpoint);
        post.setConfig(requests);
        headers.forEach(post::setHeader);
        post.setHeader("Accept", "application/json, text/event-stream");
        post.setHeader("MCP-Protocol-Version", protocolVersion);
        String sessionId = session.get();
        if (sessionId != null) {
            post.setHeader(SESSION, sessionId);
        }
        try {
            post.setEntity(new StringEntity(json.writeValueAsString(message), ContentType.APPLICATION_JSON));
            ClassicHttpResponse response = http.executeOpen(null, post, null);
            boolean whole = false;
            try {
                whole = answer(message, response, sessionId);
            } finally {
                if (whole) {
                    response.close();
                } else {
                    post.cancel(); // first: closing an unread answer would read the rest of it (forever, for an open stream)
                    closeCancelled(response);
                }
            }
        } catch (IOException e) {
            // The guard's refusal is an UnknownHostException saying which address was refused: never more than that.
            throw new ServerUnreachable("the MCP server could not be reached: " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()), !(e instanceof java.net.UnknownHostException));
        }
    }

    /** Closing a cancelled exchange fails on its closed socket: that is the point, and says nothing worth keeping. */
    private static void closeCancelled(ClassicHttpResponse response) {
        try {
            response.close();
        } catch (IOException ignored) {
            // the connection is gone, as intended
        }
    }

    /** @return whether the answer was read to its end (so the connection can be used again) */
    private boolean answer(McpSchema.JSONRPCMessage sent, ClassicHttpResponse response, @Nullable String sentSession) throws IOException {
        int status = response.getCode();
        Header newSession = response.getFirstHeader(SESSION);
        if (newSession != null && sent instanceof McpSchema.JSONRPCRequest request && McpSchema.METHOD_INITIALIZE.equals(request.method())) {
            session.set(newSession.getValue());
        }
        if ((status == 404 || status == 400) && sentSession != null) {
            // The server forgot the session (restarted, expired): nothing to end there. The link begins a new session on
            // a new transport; this one is not told to the SDK's client, whose own re-initialization races its requests.
            session.compareAndSet(sentSession, null);
            throw new McpTransportSessionNotFoundException("the MCP server ended the session");
        }
        if (status < 200 || status >= 300) {
            throw new McpTransportException("the MCP server answered HTTP " + status
                    + (status == 401 || status == 403 ? " (check the headers it was registered with)" : ""));
        }
        if (status == 202 || response.getEntity() == null) {
            return response.getEntity() == null;
        }
        String type = response.getEntity().getContentType() == null ? "" : response.getEntity().getContentType().toLowerCase(Locale.ROOT);
        InputStream body = new BoundedInputStream(response.getEntity().getContent(), maxResponseBytes);
        if (type.startsWith("text/event-stream")) {
            return readEvents(body, sent);
        }
        if (type.startsWith("application/json")) {
            String text = new String(body.readAllBytes(), StandardCharsets.UTF_8);
            if (!text.isBlank() && !(sent instanceof McpSchema.JSONRPCNotification)) {
                deliver(text);
            }
            return true;
        }
        if (!(sent instanceof McpSchema.JSONRPCNotification)) {
            throw new McpTransportException("the MCP server answered with content type '" + type + "', not JSON or an event stream");
        }
        return false;
    }

    /**
     * Server-sent events: each event's data is one JSON-RPC message; an event without data only primes a reconnection.
     * Read until the answer to {@code sent} came (a server may keep the stream open after it) or the stream ends.
     *
     * @return whether the stream ended
     */
    private boolean readEvents(InputStream body, McpSchema.JSONRPCMessage sent) throws IOException {
        Object awaited = sent instanceof McpSchema.JSONRPCRequest request ? request.id() : null;
        SseReader events = new SseReader(body);
        for (SseReader.Event event = events.next(); event != null; event = events.next()) {
            McpSchema.JSONRPCMessage message = deliver(event.data());
            if (awaited != null && message instanceof McpSchema.JSONRPCResponse response && awaited.equals(response.id())) {
                return false;
            }
        }
        if (awaited != null) {
            // The server closed the stream without answering (it stopped, or was redeployed, mid-call): the request failed
            // as a broken connection does, not waiting out its timeout; sent again, a call keeps its idempotency key.
            throw new ServerUnreachable("the MCP server closed its answer before it came", true);
        }
        return true;
    }

    private McpSchema.JSONRPCMessage deliver(String text) {
        McpSchema.JSONRPCMessage message;
        try {
            message = McpSchema.deserializeJsonRpcMessage(json, text);
        } catch (IOException | RuntimeException e) {
            throw new McpTransportException("the MCP server's answer is not a JSON-RPC message");
        }
        handler.apply(Mono.just(message)).subscribe(ignored -> { }, exceptionHandler);
        return message;
    }

    /** Ends nothing at the server when closed: it forgot the session, or the headers that would end it were replaced. */
    void forget() {
        session.set(null);
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.<Void>fromRunnable(() -> {
            String sessionId = session.getAndSet(null);
            if (sessionId == null) {
                return;
            }
            HttpDelete delete = new HttpDelete(endpoint);
            delete.setConfig(requests);
            headers.forEach(delete::setHeader);
            delete.setHeader(SESSION, sessionId);
            try {
                http.execute(delete, response -> {
                    EntityUtils.consume(response.getEntity());
                    return null;
                });
            } catch (IOException e) {
                // Ending the session is a courtesy: the server expires it anyway.
            }
        }).subscribeOn(scheduler);
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
        return json.convertValue(data, typeRef);
    }

    /** Fails the read once more than {@code limit} bytes came: a server cannot fill a worker's memory. */
    private static final class BoundedInputStream extends InputStream {
        private final InputStream in;
        private final long limit;
        private long read;

        BoundedInputStream(InputStream in, long limit) {
            this.in = in;
            this.limit = limit;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            count(b < 0 ? 0 : 1);
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = in.read(buffer, offset, length);
            count(Math.max(n, 0));
            return n;
        }

        private void count(int n) {
            read += n;
            if (read > limit) {
                throw new McpTransportException("the MCP server's answer is longer than " + limit + " bytes");
            }
        }
    }

    /**
     * The server could not be reached, or broke the connection before its answer (a restart, a redeploy). {@code passing}:
     * worth trying again shortly (not the destination guard's refusal of an address).
     */
    static final class ServerUnreachable extends McpTransportException {
        private final boolean passing;

        ServerUnreachable(String message, boolean passing) {
            super(message);
            this.passing = passing;
        }

        boolean passing() {
            return passing;
        }
    }
}
