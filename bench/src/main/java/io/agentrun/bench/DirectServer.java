package io.agentrun.bench;

import com.sun.net.httpserver.HttpExchange;
import io.agentrun.model.id.Ids;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;

/**
 * The {@code direct} baseline: the monolith a user might build instead — one in-process SSE endpoint
 * that plays the scripted model's events straight to the response, no Kafka, no Redis, a virtual thread
 * per stream and a flush per event.
 */
final class DirectServer implements AutoCloseable {

    private final SseEndpoint endpoint;
    private final Script script;
    private final long delayMs;

    DirectServer(Script script, long delayMs) throws IOException {
        this.script = script;
        this.delayMs = delayMs;
        this.endpoint = new SseEndpoint(this::stream);
    }

    URI endpoint() {
        return endpoint.uri();
    }

    private void stream(HttpExchange exchange) throws IOException {
        try (exchange) {
            OutputStream out = SseEndpoint.begin(exchange);
            String runId = Ids.newRunId();
            script.play("direct", runId, Ids.newThreadId(), delayMs, envelope -> write(out, envelope));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void write(OutputStream out, String envelope) {
        try {
            SseEndpoint.write(out, envelope);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        endpoint.close();
    }
}
