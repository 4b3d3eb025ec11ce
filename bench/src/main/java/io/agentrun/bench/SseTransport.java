package io.agentrun.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.stream.Stream;

/**
 * Streams runs over HTTP the way a client does: POST, then read {@code text/event-stream} line by line
 * and take each {@code data:} line as an event. Both the pipeline and the {@code direct} baseline are
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
        HttpResponse<Stream<String>> response = http.send(request.build(), HttpResponse.BodyHandlers.ofLines());
        try (Stream<String> lines = response.body()) {
            if (response.statusCode() != 200) {
                throw new IOException("HTTP " + response.statusCode() + ": " + lines.limit(3).toList());
            }
            Iterator<String> it = lines.iterator();
            while (!watch.ended() && it.hasNext()) {
                String line = it.next();
                if (line.startsWith("data:")) {
                    watch.onEvent(SseEvent.parse(line.substring(5).strip()));
                }
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
