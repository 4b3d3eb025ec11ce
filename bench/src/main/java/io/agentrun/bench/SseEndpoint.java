package io.agentrun.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * An in-bench HTTP endpoint for SSE streams, as a baseline's server: the JDK {@code HttpServer} on loopback, a
 * virtual thread per request, {@code TCP_NODELAY}; and the SSE framing the api writes.
 */
final class SseEndpoint implements AutoCloseable {

    static {
        // Small writes must not wait for the client's delayed ACK (Nagle): the pipeline's api sets no delay too.
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();

    SseEndpoint(HttpHandler stream) throws IOException {
        this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 10_000);
        server.createContext("/stream", stream);
        server.setExecutor(executor);
        server.start();
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/stream");
    }

    /** Reads the request and answers 200 with an event stream of unknown length. */
    static OutputStream begin(HttpExchange exchange) throws IOException {
        exchange.getRequestBody().readAllBytes();
        exchange.getResponseHeaders().set("content-type", "text/event-stream");
        exchange.getResponseHeaders().set("cache-control", "no-cache");
        exchange.sendResponseHeaders(200, 0);
        return exchange.getResponseBody();
    }

    /** One event as the api frames it ({@code id:}, {@code event:}, {@code data:}), not flushed. */
    static SseEvent write(OutputStream out, String envelope) throws IOException {
        SseEvent event = SseEvent.parse(envelope);
        out.write(("id: " + event.seq() + "\nevent: " + event.type() + "\ndata: " + envelope + "\n\n").getBytes(StandardCharsets.UTF_8));
        return event;
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
