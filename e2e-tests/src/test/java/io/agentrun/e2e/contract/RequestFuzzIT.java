package io.agentrun.e2e.contract;

import static io.agentrun.e2e.fixture.RawHttp.ascii;
import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.e2e.fixture.Problems;
import io.agentrun.e2e.fixture.RawHttp;
import io.agentrun.e2e.fixture.SharedPipeline;
import io.agentrun.e2e.fixture.Transcript;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.json.JsonCodec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Generated bodies, headers, paths and query strings thrown at a live api node (and at a worker's and a
 * relay's management port), bounded in count (each property's tries) and in time (each request must be
 * answered within {@link #DEADLINE}). Whatever arrives, the answer is a success or a 4xx problem+json: never a
 * 5xx, never HTML, never a hang; and the node still serves a normal run afterwards. The outcome counts are
 * written to {@code target/fuzz-outcomes.txt}.
 *
 * <p>The inputs come from jqwik's generators, drawn in a Jupiter suite ({@link Arbitrary#sampleStream()}) rather than
 * by jqwik's engine: the suite then runs on the JVM's shared pipeline beside the others, where jqwik's engine ran alone
 * after them on servers of its own (30 s at the end of every build). Nothing is shrunk: a failing request is shown
 * whole, bytes escaped.
 *
 * <p>Left out on purpose, because the RFCs prescribe a 5xx or a wait for them (MalformedRequestsIT covers
 * each): {@code CONNECT} and unknown transfer codings (501), HTTP versions other than 1.x (505), and a
 * Content-Length longer than the body (the server waits for the rest).
 */
@ExtendWith({RealInfrastructure.class, SharedPipeline.class})
class RequestFuzzIT {

    static final Duration DEADLINE = Duration.ofSeconds(15);
    private static final String RUN = "/api/v1/agents/assistant/run";
    private static final String STREAM = "/api/v1/agents/assistant/stream/threads";
    private static final JsonCodec CODEC = new JsonCodec();
    private static final Map<String, LongAdder> OUTCOMES = new ConcurrentHashMap<>();

    static Pipeline pipeline;

    enum Port { API, WORKER, RELAY }

    @BeforeAll
    static void start(Pipeline project) {
        pipeline = project;
    }

    @AfterAll
    static void afterwardsTheNodeStillServesARun() throws IOException {
        var stream = new ApiClient(pipeline.api(0), pipeline.projectId, pipeline.apiKey)
                .stream("assistant", null, ApiClient.body("still serving?"));
        assertThat(stream.status()).isEqualTo(200);
        assertThat(Transcript.of(stream.events()).runEnd().output()).isEqualTo("Echo #1: still serving?");
        writeOutcomes();
    }

    @Test
    void bodies() {
        Combinators.combine(bodyBytes(), Arbitraries.of(true, false)).as((body, stream) -> (Runnable) () -> {
            String path = stream ? STREAM : RUN;
            List<byte[]> headers = new ArrayList<>(credentials());
            headers.add(ascii("Content-Type: application/json"));
            check("body", Port.API, RawHttp.request("POST", ascii(path), headers, body), false);
        }).sampleStream().limit(400).forEach(Runnable::run);
    }

    @Test
    void headers() {
        Combinators.combine(headerLines(), Arbitraries.of(Port.class)).as((extra, port) -> (Runnable) () -> {
            List<byte[]> headers = new ArrayList<>(port == Port.API ? credentials() : List.of());
            headers.add(ascii("Content-Type: application/json"));
            headers.addAll(extra);
            byte[] request = port == Port.API
                    ? RawHttp.request("POST", ascii(RUN), headers, ascii("{\"query\":\"headers\"}"))
                    : RawHttp.request("GET", ascii("/actuator/health"), headers, new byte[0]);
            check("header", port, request, false);
        }).sampleStream().limit(300).forEach(Runnable::run);
    }

    @Test
    void paths() {
        Combinators.combine(methods(), targets(), Arbitraries.of(Port.class)).as((method, target, port) -> (Runnable) () -> {
            List<byte[]> headers = new ArrayList<>(credentials());
            headers.add(ascii("Content-Type: application/json"));
            byte[] body = method.equals("GET") || method.equals("HEAD") ? new byte[0] : ascii("{\"query\":\"paths\"}");
            check("path", port, RawHttp.request(method, target, headers, body), method.equals("HEAD"));
        }).sampleStream().limit(300).forEach(Runnable::run);
    }

    @Test
    void queryStrings() {
        queries().sampleStream().limit(300).forEach(query -> {
            List<byte[]> headers = new ArrayList<>(credentials());
            headers.add(ascii("Content-Type: application/json"));
            check("query", Port.API, RawHttp.request("POST", ascii(STREAM + "?" + query), headers, ascii("{\"query\":\"q\"}")), false);
        });
    }

    // ---- what every answer must be

    private static void check(String property, Port port, byte[] request, boolean head) {
        URI base = switch (port) {
            case API -> pipeline.api(0);
            case WORKER -> pipeline.worker(0);
            case RELAY -> pipeline.relay(0);
        };
        RawHttp.Response response = RawHttp.send(base, request, DEADLINE);
        String outcome = outcome(response, head);
        OUTCOMES.computeIfAbsent(property + " " + outcome, k -> new LongAdder()).increment();
        String shown = ("request " + printable(request) + "\nanswered " + response.status() + " " + printable(response.body()))
                .replace(pipeline.apiKey, "<the test key>");
        assertThat(response.status()).as(shown).isLessThan(500);
        assertThat(response.header("content-type")).as(shown).doesNotContain("html");
        assertThat(response.text().toLowerCase()).as(shown).doesNotContain("<html").doesNotContain("<!doctype");
        assertThat(response.text()).as(shown).doesNotContain(pipeline.apiKey);
        if (response.status() == 0) {
            // No status line: Tomcat answers HTTP/0.9-style when it could not read the request line's protocol
            assertThat(CODEC.mapper().readTree(response.body()).get("code").asString()).as(shown).matches("[a-z_]+");
        } else if (response.status() >= 400 && !head) {
            Problems.assertProblem(response);
        } else if (response.header("content-type").startsWith("text/event-stream")) {
            assertThat(response.text()).as(shown).contains("event: run_end");
        }
    }

    private static String outcome(RawHttp.Response response, boolean head) {
        if (response.status() == 0) {
            return "no status line (problem body)";
        }
        if (response.status() >= 400 && !head && response.header("content-type").startsWith("application/problem+json")) {
            return response.status() + " " + CODEC.mapper().readTree(response.body()).get("code").asString();
        }
        return String.valueOf(response.status());
    }

    private static void writeOutcomes() throws IOException {
        Map<String, Long> sorted = new TreeMap<>();
        OUTCOMES.forEach((k, v) -> sorted.put(k, v.sum()));
        StringBuilder text = new StringBuilder("cases\toutcome\n");
        sorted.forEach((k, v) -> text.append(v).append('\t').append(k).append('\n'));
        text.append(sorted.values().stream().mapToLong(Long::longValue).sum()).append("\ttotal\n");
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "fuzz-outcomes.txt"), text);
        System.out.print("RequestFuzzIT outcomes\n" + text);
    }

    private static List<byte[]> credentials() {
        return List.of(ascii("x-api-key: " + pipeline.apiKey), ascii("x-project-id: " + pipeline.projectId));
    }

    private static String printable(byte[] bytes) {
        String text = new String(bytes, 0, Math.min(bytes.length, 600), StandardCharsets.ISO_8859_1);
        StringBuilder out = new StringBuilder();
        text.chars().forEach(c -> out.append(c >= 0x20 && c < 0x7f ? String.valueOf((char) c) : String.format("\\x%02x", c)));
        return out + (bytes.length > 600 ? "…(" + bytes.length + " bytes)" : "");
    }

    // ---- generators

    /** Bytes of every kind: random, valid runs, valid runs with bytes mutated, JSON of the wrong shape, deep nesting, bad UTF-8. */
    private static Arbitrary<byte[]> bodyBytes() {
        return Arbitraries.oneOf(
                Arbitraries.bytes().array(byte[].class).ofMaxSize(300),
                validRuns(),
                Combinators.combine(validRuns(), Arbitraries.integers().between(0, 1000).list().ofMinSize(1).ofMaxSize(4),
                        Arbitraries.bytes().list().ofMinSize(4).ofMaxSize(4)).as(RequestFuzzIT::mutate),
                jsonOfAnyShape(),
                Combinators.combine(Arbitraries.integers().between(1, 3000), Arbitraries.of("[", "{\"a\":"))
                        .as((depth, open) -> ascii("{\"query\":\"q\",\"metadata\":" + open.repeat(depth))),
                Combinators.combine(Arbitraries.of("C0A2", "C1BF", "E080A2", "F08080A2", "EDA080", "EDBFBF", "FF", "FE", "80", "E282", "F4908080", "C0"),
                        Arbitraries.strings().alpha().ofMaxLength(10)).as(RequestFuzzIT::withBadUtf8));
    }

    private static Arbitrary<byte[]> validRuns() {
        return Arbitraries.strings().withCharRange(' ', '\uD7FF').withCharRange('\uE000', '\uFFFD').ofMinLength(1).ofMaxLength(60)
                .map(query -> CODEC.write(Map.of("query", query)).getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] mutate(byte[] body, List<Integer> positions, List<Byte> values) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(body);
        byte[] mutated = out.toByteArray();
        for (int i = 0; i < positions.size(); i++) {
            mutated[positions.get(i) % mutated.length] = values.get(i);
        }
        return mutated;
    }

    private static byte[] withBadUtf8(String hex, String around) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(ascii("{\"query\":\"" + around));
        out.writeBytes(HexFormat.of().parseHex(hex));
        out.writeBytes(ascii(around + "\"}"));
        return out.toByteArray();
    }

    /** Objects with known and unknown fields holding values of every type, sometimes with a key repeated. */
    private static Arbitrary<byte[]> jsonOfAnyShape() {
        Arbitrary<String> names = Arbitraries.oneOf(
                Arbitraries.of("query", "images", "documents", "audios", "contexts", "metadata", "qeury", ""),
                Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(12));
        Arbitrary<Object> values = Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(30).map(v -> (Object) v.replaceAll("[\uD800-\uDFFF]", "x")),
                Arbitraries.integers().map(v -> (Object) v),
                Arbitraries.doubles().map(v -> (Object) v),
                Arbitraries.of(true, false).map(v -> (Object) v),
                Arbitraries.strings().alpha().ofMaxLength(8).list().ofMaxSize(20).map(v -> (Object) v),
                Arbitraries.integers().list().ofMaxSize(3).map(v -> (Object) v),
                Arbitraries.strings().alpha().ofMaxLength(5).map(v -> (Object) Map.of(v, List.of(v))),
                Arbitraries.just((Object) "https://example.com/x.png"));
        Arbitrary<Map<String, Object>> objects = Arbitraries.maps(names, values).ofMaxSize(6);
        return Combinators.combine(objects, Arbitraries.of("", ",\"query\":\"again\"", ",\"metadata\":{}", ",\"n\":1e999999", ",\"n\":-0"))
                .as((object, tail) -> {
                    String json = CODEC.write(new LinkedHashMap<>(object));
                    String body = json.equals("{}") ? "{" + tail.replaceFirst("^,", "") + "}" : json.substring(0, json.length() - 1) + tail + "}";
                    return body.getBytes(StandardCharsets.UTF_8);
                });
    }

    /** Header lines, mostly well-formed, with names we read and values that are long, non-ASCII, or carry CR, LF or NUL. */
    private static Arbitrary<List<byte[]>> headerLines() {
        Arbitrary<String> names = Arbitraries.oneOf(
                Arbitraries.of("x-api-key", "x-project-id", "authorization", "origin", "last-event-id", "content-type", "accept",
                        "accept-encoding", "cookie", "host", "expect", "x-forwarded-for", "idempotency-key", "connection", "range"),
                Arbitraries.strings().withChars("abcdefghijklmnopqrstuvwxyz0123456789-_!#$%&'*+.^`|~").ofMinLength(1).ofMaxLength(20));
        Arbitrary<byte[]> values = Arbitraries.oneOf(
                Arbitraries.strings().ascii().ofMaxLength(100).map(v -> ascii(v.replaceAll("[\r\n]", ""))),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(60),
                Arbitraries.integers().between(1000, 10_000).map(n -> ascii("v".repeat(n))),
                Arbitraries.strings().alpha().numeric().ofMaxLength(60).map(v -> ascii("Bearer " + v)),
                Arbitraries.of("application/json; charset=utf-16", "text/event-stream", "*/*", "application/problem+json",
                        "http://evil.example", "null", "-1", "18446744073709551616").map(RawHttp::ascii));
        Arbitrary<byte[]> lines = Combinators.combine(names, values).as((name, value) -> {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            line.writeBytes(ascii(name + ": "));
            line.writeBytes(value);
            return line.toByteArray();
        });
        return lines.list().ofMinSize(1).ofMaxSize(4);
    }

    private static Arbitrary<String> methods() {
        return Arbitraries.of("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD", "TRACE", "get", "FOO", "PROPFIND", "M-SEARCH");
    }

    /** Request targets: known and unknown segments, encoded bytes, dot segments, path parameters, very long segments, raw bytes. */
    private static Arbitrary<byte[]> targets() {
        Arbitrary<String> segments = Arbitraries.oneOf(
                Arbitraries.of("api", "v1", "agents", "assistant", "run", "stream", "threads", "uploads", "request", "view-url",
                        "files", "admin", "projects", "actuator", "health", "prometheus", "runs", "cancel", "error", "embed", "widget.js"),
                Arbitraries.strings().withChars("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,=:@")
                        .ofMinLength(1).ofMaxLength(20),
                Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(8).map(RequestFuzzIT::percentEncoded),
                Arbitraries.of("..", ".", "%2e%2e", "%2E", "%2F", "%5C", ";", "a;b=c", "%00", "%", "%zz", "%C0%AF", "", "?", "?x=%", "#f"),
                Arbitraries.integers().between(1000, 12_000).map("a"::repeat));
        Arbitrary<byte[]> encoded = segments.list().ofMinSize(1).ofMaxSize(6).map(s -> ascii("/" + String.join("/", s)));
        Arbitrary<byte[]> raw = Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(20).map(b -> {
            byte[] target = new byte[b.length + 1];
            target[0] = '/';
            System.arraycopy(b, 0, target, 1, b.length);
            return target;
        });
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(9, encoded), net.jqwik.api.Tuple.of(1, raw));
    }

    /** Query strings for the stream endpoint: its parameters and others, repeated, empty, badly encoded. */
    private static Arbitrary<String> queries() {
        Arbitrary<String> names = Arbitraries.oneOf(
                Arbitraries.of("thread_id", "on_disconnect", "after", "x", "thread_id%00", "%74hread_id", ""),
                Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(10));
        Arbitrary<String> values = Arbitraries.oneOf(
                Arbitraries.of("", "cancel", "continue", "thr_aaaaaaaaaaaaaaaaaaaaaaaaaa", "%zz", "%C0%A2", "%FF", "%", "a+b", "..%2F"),
                Arbitraries.strings().withChars("abcdefghijklmnopqrstuvwxyz0123456789-._~!$'()*+,;:@/?").ofMaxLength(40),
                Arbitraries.bytes().array(byte[].class).ofMaxSize(8).map(RequestFuzzIT::percentEncoded));
        Arbitrary<String> pairs = Combinators.combine(names, values, Arbitraries.of(true, true, false))
                .as((name, value, withEquals) -> withEquals ? name + "=" + value : name);
        return Combinators.combine(pairs.list().ofMaxSize(5), Arbitraries.of("&", "&", "&&", ";"))
                .as((list, separator) -> String.join(separator, list));
    }

    private static String percentEncoded(byte[] bytes) {
        StringBuilder encoded = new StringBuilder();
        for (byte b : bytes) {
            encoded.append('%').append(HexFormat.of().withUpperCase().toHexDigits(b));
        }
        return encoded.toString();
    }
}
