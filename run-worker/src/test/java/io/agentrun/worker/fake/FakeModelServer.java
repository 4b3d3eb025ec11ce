package io.agentrun.worker.fake;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A model provider for tests: a real HTTP server on a free port that answers each request with the next
 * scripted {@link Reply} — recorded streaming bodies written in pieces split at awkward places (inside
 * JSON, inside a multi-byte character), error statuses, or a stream that hangs. Records every request.
 */
public final class FakeModelServer implements AutoCloseable {

    /** A request as the provider received it. */
    public record Received(String method, String path, Map<String, List<String>> headers, String body) {
        public String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(e -> e.getValue().getFirst()).findFirst().orElse(null);
        }
    }

    /** How to answer one request. */
    public sealed interface Reply {
    }

    /** 200 {@code text/event-stream}, the body written piece by piece, each piece flushed. */
    public record Stream(List<byte[]> pieces) implements Reply {
    }

    /** An error status with a body and headers. */
    public record Status(int status, String body, Map<String, String> headers) implements Reply {
    }

    /** 200 and the first pieces, then nothing until the client gives up or the server stops. */
    public record Hang(List<byte[]> before) implements Reply {
    }

    private final HttpServer server;
    private final ConcurrentLinkedQueue<Reply> replies = new ConcurrentLinkedQueue<>();
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final CountDownLatch closing = new CountDownLatch(1);

    public FakeModelServer() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/", this::answer);
        server.start();
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public FakeModelServer then(Reply reply) {
        replies.add(reply);
        return this;
    }

    public List<Received> received() {
        return List.copyOf(received);
    }

    /** {@code sse} cut into pieces of {@code size} bytes, wherever that falls. */
    public static Stream stream(String sse, int size) {
        byte[] bytes = sse.getBytes(StandardCharsets.UTF_8);
        List<byte[]> pieces = new ArrayList<>();
        for (int from = 0; from < bytes.length; from += size) {
            byte[] piece = new byte[Math.min(size, bytes.length - from)];
            System.arraycopy(bytes, from, piece, 0, piece.length);
            pieces.add(piece);
        }
        return new Stream(pieces);
    }

    public static Status status(int status, String body, Map<String, String> headers) {
        return new Status(status, body, headers);
    }

    public static Hang hangAfter(String sse) {
        return new Hang(List.of(sse.getBytes(StandardCharsets.UTF_8)));
    }

    private void answer(HttpExchange exchange) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        received.add(new Received(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
                Map.copyOf(exchange.getRequestHeaders()), body));
        Reply reply = replies.poll();
        try (exchange) {
            switch (reply) {
                case null -> send(exchange, new Status(500, "{\"error\":{\"message\":\"no reply scripted\"}}", Map.of()));
                case Status status -> send(exchange, status);
                case Stream stream -> stream(exchange, stream.pieces());
                case Hang hang -> {
                    stream(exchange, hang.before());
                    awaitQuietly();
                }
            }
        } catch (IOException clientLeft) {
            // the client aborted (cancellation, timeout): nothing to answer any more
        }
    }

    private static void send(HttpExchange exchange, Status status) throws IOException {
        status.headers().forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
        exchange.getResponseHeaders().add("content-type", "application/json");
        byte[] bytes = status.body().getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status.status(), bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            exchange.getResponseBody().write(bytes);
        }
    }

    /** Server-sent events, or newline-delimited JSON (Ollama's streams) when the body is JSON lines. */
    private static void stream(HttpExchange exchange, List<byte[]> pieces) throws IOException {
        boolean jsonLines = !pieces.isEmpty() && pieces.getFirst().length > 0 && pieces.getFirst()[0] == '{';
        exchange.getResponseHeaders().add("content-type", jsonLines ? "application/x-ndjson" : "text/event-stream");
        exchange.sendResponseHeaders(200, 0);
        OutputStream out = exchange.getResponseBody();
        for (byte[] piece : pieces) {
            out.write(piece);
            out.flush();
        }
    }

    private void awaitQuietly() {
        try {
            closing.await(5, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        closing.countDown();
        server.stop(0);
    }
}
