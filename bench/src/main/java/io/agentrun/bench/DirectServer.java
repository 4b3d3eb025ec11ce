package io.agentrun.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.agentrun.model.id.Ids;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The {@code direct} baseline: the monolith a user might build instead — one in-process SSE endpoint
 * that plays the scripted model's events straight to the response, no Kafka, no Redis, a virtual thread
 * per stream and a flush per event.
 */
final class DirectServer implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final Script script;
    private final long delayMs;

    static {
        // Small writes must not wait for the client's delayed ACK (Nagle): the pipeline's api sets no delay too.
        System.setProperty("sun.net.httpserver.nodelay", "true");
    }

    DirectServer(Script script, long delayMs) throws IOException {
        this.script = script;
        this.delayMs = delayMs;
        this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 10_000);
        server.createContext("/stream", this::stream);
        server.setExecutor(executor);
        server.start();
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/stream");
    }

    private void stream(HttpExchange exchange) throws IOException {
        try (exchange) {
            exchange.getRequestBody().readAllBytes();
            exchange.getResponseHeaders().set("content-type", "text/event-stream");
            exchange.getResponseHeaders().set("cache-control", "no-cache");
            exchange.sendResponseHeaders(200, 0);
            OutputStream out = exchange.getResponseBody();
            String runId = Ids.newRunId();
            script.play("direct", runId, Ids.newThreadId(), delayMs, envelope -> write(out, envelope));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void write(OutputStream out, String envelope) {
        try {
            SseEvent event = SseEvent.parse(envelope);
            out.write(("id: " + event.seq() + "\nevent: " + event.type() + "\ndata: " + envelope + "\n\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
