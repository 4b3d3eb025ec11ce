package io.agentrun.bench;

import io.agentrun.client.SseMessage;
import io.agentrun.client.SseParser;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;

/**
 * Streams runs over HTTP the way a client does: POST, then read {@code text/event-stream} with the Java SDK's
 * {@link SseParser} and take each event's data. Both the pipeline and the {@code direct} baseline are
 * measured with this same client. Clients are spread over the endpoints (api nodes) by slot.
 */
final class SseTransport implements Transport {

    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(30);

    private final String name;
    private final List<URI> endpoints;
    private final Map<String, String> headers;
    private final String body;
    private final HttpClient http;

    SseTransport(String name, List<URI> endpoints, Map<String, String> headers, String body) {
        this.name = name;
        this.endpoints = List.copyOf(endpoints);
        this.headers = Map.copyOf(headers);
        this.body = body;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(CONNECT_TIMEOUT)
                .executor(Executors.newVirtualThreadPerTaskExecutor())
                .build();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void run(int slot, RunWatch watch) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(endpoints.get(slot % endpoints.size()))
                .timeout(Duration.ofSeconds(60))
                .header("content-type", "application/json")
                .header("accept", "text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(request::header);
        HttpResponse<InputStream> response = http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream body = response.body()) {
            if (response.statusCode() != 200) {
                throw new IOException("HTTP " + response.statusCode() + ": " + new String(body.readNBytes(300), StandardCharsets.UTF_8));
            }
            SseParser events = new SseParser(body);
            for (SseMessage message; !watch.ended() && (message = events.next()) != null; ) {
                watch.onEvent(SseEvent.parse(message.data()));
            }
        }
        if (!watch.ended()) {
            throw new IOException("the stream ended before run_end");
        }
    }

    @Override
    public void close() {
        http.close();
    }
}
