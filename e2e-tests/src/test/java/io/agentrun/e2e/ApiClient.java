package io.agentrun.e2e;

import io.agentrun.client.SseMessage;
import io.agentrun.client.SseParser;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Talks to an api node over real HTTP and parses SSE bytes line by line, as a browser would. */
final class ApiClient {

    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    private final URI base;
    private final Map<String, String> credentials;

    ApiClient(URI base, String projectId, String apiKey) {
        this(base, Map.of("x-project-id", projectId, "x-api-key", apiKey));
    }

    ApiClient(URI base, Map<String, String> credentials) {
        this.base = base;
        this.credentials = credentials;
    }

    /**
     * Sends on the shared client; transport failures become unchecked, as tests cannot recover from them. Every
     * response is checked against the OpenAPI document: a whole body here, a stream's head here and its events as
     * they are read ({@link #readUntil}).
     */
    private static <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        try {
            HttpResponse<T> response = HTTP.send(request, handler);
            if (response.body() instanceof String text) {
                checkContract(response, text);
            } else if (response.body() instanceof InputStream && isStream(response)) {
                checkContract(response, "");
            }
            return response;
        } catch (IOException e) {
            throw new IllegalStateException(request.method() + " " + request.uri().getPath() + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static String body(String query) {
        return "{\"query\":\"" + query.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}";
    }

    StreamResponse stream(String agentId, String threadId, String json) {
        return stream(agentId, threadId, json, Map.of("content-type", "application/json"));
    }

    StreamResponse stream(String agentId, String threadId, String json, Map<String, String> headers) {
        String path = "/api/v1/agents/" + agentId + "/stream/threads"
                + (threadId == null ? "" : "?thread_id=" + URLEncoder.encode(threadId, StandardCharsets.UTF_8));
        HttpRequest request = request(path, json, headers).header("accept", "text/event-stream").build();
        return readWhole(send(request, HttpResponse.BodyHandlers.ofInputStream()));
    }

    private static void checkContract(HttpResponse<?> response, String body) {
        OpenApiContract.V1.check(response.request().method(), response.uri(), response.statusCode(),
                response.headers().firstValue("content-type").orElse(null), body);
    }

    private static boolean isStream(HttpResponse<?> response) {
        return response.headers().firstValue("content-type").orElse("").startsWith("text/event-stream");
    }

    /** The whole response: parsed events when it is a stream, the body otherwise (a problem). */
    static StreamResponse readWhole(HttpResponse<InputStream> response) {
        try (InputStream in = response.body()) {
            if (isStream(response)) {
                return new StreamResponse(response.statusCode(), response.headers().map(), parse(in), "");
            }
            String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            checkContract(response, body);
            return new StreamResponse(response.statusCode(), response.headers().map(), List.of(), body);
        } catch (IOException e) {
            throw new IllegalStateException("reading the response failed", e);
        }
    }

    /** A run on {@code threadId} with {@code ?if_busy=}, as it arrives. */
    HttpResponse<InputStream> openStream(String agentId, String threadId, String ifBusy, String json) {
        String path = "/api/v1/agents/" + agentId + "/stream/threads?thread_id=" + URLEncoder.encode(threadId, StandardCharsets.UTF_8)
                + "&if_busy=" + URLEncoder.encode(ifBusy, StandardCharsets.UTF_8);
        HttpRequest request = request(path, json, Map.of("content-type", "application/json"))
                .header("accept", "text/event-stream").build();
        return send(request, HttpResponse.BodyHandlers.ofInputStream());
    }

    /** The stream's response as it arrives, for tests that read raw bytes or hang up early. */
    HttpResponse<InputStream> openStream(String agentId, String threadId, String json) {
        String path = "/api/v1/agents/" + agentId + "/stream/threads"
                + (threadId == null ? "" : "?thread_id=" + URLEncoder.encode(threadId, StandardCharsets.UTF_8));
        HttpRequest request = request(path, json, Map.of("content-type", "application/json"))
                .header("accept", "text/event-stream").build();
        return send(request, HttpResponse.BodyHandlers.ofInputStream());
    }

    /** A new run's stream (no thread) with extra request headers, e.g. {@code Idempotency-Key}, as it arrives. */
    HttpResponse<InputStream> openStream(String agentId, String json, Map<String, String> headers) {
        Map<String, String> all = new LinkedHashMap<>(headers);
        all.putIfAbsent("content-type", "application/json");
        HttpRequest request = request("/api/v1/agents/" + agentId + "/stream/threads", json, all)
                .header("accept", "text/event-stream").build();
        return send(request, HttpResponse.BodyHandlers.ofInputStream());
    }

    /** {@code GET /api/v1/threads/{thread}/runs/{run}/stream}, with {@code Last-Event-ID} when given, read to its end. */
    StreamResponse join(String threadId, String runId, String lastEventId) {
        return readWhole(openJoin(threadId, runId, lastEventId));
    }

    /** {@code GET …/stream} of a run, as it arrives. */
    HttpResponse<InputStream> openJoin(String threadId, String runId, String lastEventId) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(base.resolve("/api/v1/threads/" + threadId + "/runs/" + runId + "/stream"))
                .header("accept", "text/event-stream").GET();
        credentials.forEach(builder::header);
        if (lastEventId != null) {
            builder.header("Last-Event-ID", lastEventId);
        }
        return send(builder.build(), HttpResponse.BodyHandlers.ofInputStream());
    }

    HttpResponse<String> cancel(String threadId, String runId) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(base.resolve("/api/v1/threads/" + threadId + "/runs/" + runId + "/cancel"))
                .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.noBody());
        credentials.forEach(builder::header);
        return send(builder.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Opens a stream (new run) with extra query parameters, e.g. {@code on_disconnect=cancel}. */
    HttpResponse<InputStream> openStreamWith(String agentId, String json, String query) {
        HttpRequest request = request("/api/v1/agents/" + agentId + "/stream/threads?" + query, json,
                Map.of("content-type", "application/json")).header("accept", "text/event-stream").build();
        return send(request, HttpResponse.BodyHandlers.ofInputStream());
    }

    /**
     * The parser of each stream read here: the SDK's ({@link SseParser}), which reads ahead into its buffer, so a caller
     * that reads on from the same stream where {@link #readUntil} stopped must meet the same parser. An entry goes at
     * its stream's end; a stream a test leaves unread keeps its parser (a few kB) for the test JVM's life.
     */
    private static final Map<InputStream, SseParser> PARSERS = java.util.Collections.synchronizedMap(new java.util.IdentityHashMap<>());

    /**
     * Reads SSE events of a v1 stream as they come, handing each to {@code consumer} until it returns false; each
     * is checked against the OpenAPI document's {@code StreamEvent}.
     */
    static List<SseEvent> readUntil(InputStream in, java.util.function.Predicate<SseEvent> more) throws IOException {
        SseParser parser = PARSERS.computeIfAbsent(in, SseParser::new);
        List<SseEvent> events = new ArrayList<>();
        for (SseMessage message; (message = parser.next()) != null; ) {
            SseEvent parsed = new SseEvent(message.id(), message.event(), message.data());
            OpenApiContract.V1.checkEvent(parsed);
            events.add(parsed);
            if (!more.test(parsed)) {
                return events;
            }
        }
        PARSERS.remove(in);
        return events;
    }

    HttpResponse<String> run(String agentId, String json, Map<String, String> headers) {
        HttpRequest request = request("/api/v1/agents/" + agentId + "/run", json, headers).build();
        return send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** {@code POST /api/v1/agents/{agentId}/runs[?thread_id=]}: a background run, answered 202 at once. */
    HttpResponse<String> background(String agentId, String threadId, String json, Map<String, String> headers) {
        String path = "/api/v1/agents/" + agentId + "/runs" + (threadId == null ? "" : "?thread_id=" + threadId);
        Map<String, String> all = new LinkedHashMap<>(Map.of("content-type", "application/json"));
        all.putAll(headers);
        return exchange("POST", path, all, json);
    }

    /** Any request, with this client's credentials and then {@code headers} (a null value removes a header). */
    HttpResponse<String> exchange(String method, String path, Map<String, String> headers, String body) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(60))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        Map<String, String> all = new LinkedHashMap<>(credentials);
        all.putAll(headers);
        all.forEach((name, value) -> {
            if (value != null) {
                builder.header(name, value);
            }
        });
        return send(builder.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> get(String path) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30)).GET();
        credentials.forEach(builder::header);
        return send(builder.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** {@code POST /api/v1/uploads/request}. */
    HttpResponse<String> requestUpload(String filename, String contentType, String purpose) {
        String json = "{\"filename\":" + quoted(filename) + ",\"contentType\":" + quoted(contentType) + ",\"purpose\":" + quoted(purpose) + "}";
        return send(request("/api/v1/uploads/request", json, Map.of("content-type", "application/json")).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** {@code GET /api/v1/uploads/view-url?blobPath=}. */
    HttpResponse<String> viewUrl(String blobPath) {
        return get("/api/v1/uploads/view-url?blobPath=" + URLEncoder.encode(blobPath, StandardCharsets.UTF_8));
    }

    /** A signed URL's {@code PUT}, without our credentials: the signature is the permission. */
    static HttpResponse<String> putFile(URI signedUrl, String contentType, byte[] body) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(signedUrl).timeout(Duration.ofSeconds(60))
                .PUT(HttpRequest.BodyPublishers.ofByteArray(body));
        if (contentType != null) {
            builder.header("content-type", contentType);
        }
        return send(builder.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A signed URL's {@code GET}, without our credentials. */
    static HttpResponse<byte[]> getFile(URI signedUrl) {
        return send(HttpRequest.newBuilder(signedUrl).timeout(Duration.ofSeconds(60)).GET().build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    private static String quoted(String value) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }

    private HttpRequest.Builder request(String path, String json, Map<String, String> headers) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(base.resolve(path))
                .timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8));
        Map<String, String> all = new LinkedHashMap<>(credentials);
        all.putAll(headers);
        all.forEach((name, value) -> {
            if (value != null) {
                builder.header(name, value);
            }
        });
        return builder;
    }

    /** The SSE wire format: fields per line, events separated by a blank line, comments start with ':'. */
    static List<SseEvent> parse(InputStream in) throws IOException {
        return readUntil(in, event -> true);
    }

    record StreamResponse(int status, Map<String, List<String>> headers, List<SseEvent> events, String body) {
        String header(String name) {
            return headers.getOrDefault(name, List.of()).stream().findFirst().orElse(null);
        }
    }
}
