package io.agentrun.e2e.contract;

import static io.agentrun.e2e.fixture.RawHttp.ascii;
import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.e2e.fixture.Problems;
import io.agentrun.e2e.fixture.RawHttp;
import io.agentrun.e2e.fixture.SharedPipeline;
import io.agentrun.infra.testing.RealInfrastructure;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The table of malformed input in docs/api.md, row by row, sent as raw bytes to a live api node and to a worker's
 * and a relay's management port: each is refused with its status and code as problem+json (never Tomcat's
 * HTML page), and nothing ambiguous (overlong UTF-8, repeated keys, repeated headers) is accepted.
 */
@ExtendWith({RealInfrastructure.class, SharedPipeline.class})
class MalformedRequestsIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final String RUN = "/api/v1/agents/assistant/run";
    private static final String STREAM = "/api/v1/agents/assistant/stream/threads";

    static Pipeline pipeline;

    enum Port { API, WORKER, RELAY }

    /** One malformed-input class: the request as bytes, given the pipeline's credentials as header lines. */
    record Row(String name, Port port, Function<List<byte[]>, byte[]> request, int status, String code) {
        @Override
        public String toString() {
            return port + ": " + name + " -> " + status + " " + code;
        }
    }

    @BeforeAll
    static void start(Pipeline project) {
        pipeline = project;
    }

    static Stream<Row> rows() {
        List<Row> rows = new ArrayList<>();
        for (String path : List.of(RUN, STREAM)) {
            String endpoint = path.equals(RUN) ? "run: " : "stream: ";
            rows.add(body(endpoint + "overlong UTF-8 for '\"' (C0 A2)", path, bytes("{\"query\":\"a", 0xC0, 0xA2, "\"}"), 400, "invalid_request"));
            rows.add(body(endpoint + "overlong UTF-8, 3 bytes (E0 80 A2)", path, bytes("{\"query\":\"a", 0xE0, 0x80, 0xA2, "\"}"), 400, "invalid_request"));
            rows.add(body(endpoint + "a lone surrogate (ED A0 80)", path, bytes("{\"query\":\"a", 0xED, 0xA0, 0x80, "\"}"), 400, "invalid_request"));
            rows.add(body(endpoint + "byte FF", path, bytes("{\"query\":\"a", 0xFF, "\"}"), 400, "invalid_request"));
            rows.add(body(endpoint + "a repeated key", path, ascii("{\"query\":\"first\",\"query\":\"second\"}"), 400, "invalid_request"));
            rows.add(body(endpoint + "a repeated key inside metadata", path, ascii("{\"query\":\"q\",\"metadata\":{\"a\":1,\"a\":2}}"), 400, "invalid_request"));
        }
        rows.add(api("an encoded '/' in the agent id", credentials -> post("/api/v1/agents/..%2F..%2Fadmin%2Fv1%2Fprojects/run", credentials), 400, "invalid_request"));
        rows.add(api("bad percent-encoding in the path", credentials -> post("/api/v1/agents/%zz/run", credentials), 400, "invalid_request"));
        rows.add(api("overlong UTF-8 in the path", credentials -> post("/api/v1/agents/a%C0%AFb/run", credentials), 400, "invalid_request"));
        rows.add(api("an encoded dot segment", credentials -> post("/api/v1/agents/%2e%2e/run", credentials), 400, "invalid_request"));
        rows.add(api("a path parameter (';')", credentials -> post("/api/v1/agents/assistant;v=1/run", credentials), 400, "invalid_request"));
        rows.add(api("a 10 KB agent id", credentials -> post("/api/v1/agents/" + "a".repeat(10_240) + "/run", credentials), 414, "uri_too_long"));
        rows.add(api("a 64 KB thread_id", credentials -> post(STREAM + "?thread_id=" + "t".repeat(65_536), credentials), 414, "uri_too_long"));
        rows.add(api("bad percent-encoding in the query", credentials -> post(STREAM + "?thread_id=%zz", credentials), 400, "invalid_request"));
        rows.add(api("overlong UTF-8 in the query", credentials -> post(STREAM + "?thread_id=%C0%A2", credentials), 400, "invalid_request"));
        rows.add(api("a query parameter given twice", credentials -> post(STREAM + "?thread_id=a&thread_id=b", credentials), 400, "invalid_request"));
        rows.add(api("x-project-id given twice", credentials -> post(RUN, with(credentials, ascii("x-project-id: other"))), 400, "invalid_request"));
        rows.add(api("x-api-key given twice", credentials -> post(RUN, with(credentials, ascii("x-api-key: ar_sk_other"))), 400, "invalid_request"));
        rows.add(api("a non-ASCII byte in a read header", credentials -> post(RUN, with(credentials.subList(1, 2), bytes("x-project-id: d", 0xE9, "mo"))), 400, "invalid_request"));
        rows.add(api("more than 8 KiB of headers", credentials -> post(RUN, with(credentials, ascii("x-padding: " + "p".repeat(9_000)))), 431, "headers_too_large"));
        rows.add(api("no Content-Length that is a number", credentials -> post(RUN, with(credentials, ascii("Content-Length: ten"))), 400, "invalid_request"));
        rows.add(api("Expect other than 100-continue", credentials -> post(RUN, with(credentials, ascii("Expect: 200-ok"))), 417, "expectation_failed"));
        rows.add(api("an unknown transfer coding", credentials -> post(RUN, with(credentials, ascii("Transfer-Encoding: gzip"))), 501, "not_implemented"));
        rows.add(api("an Accept that is not a media type", credentials -> post(RUN, with(credentials, ascii("Accept: vvvv"))), 400, "invalid_request"));
        rows.add(api("an Accept of neither JSON nor text", credentials -> post(RUN, with(credentials, ascii("Accept: image/png"))), 406, "not_acceptable"));
        rows.add(api("a form body over 2 MiB", credentials -> RawHttp.request("POST", ascii(RUN),
                with(credentials, ascii("Content-Type: application/x-www-form-urlencoded")), ascii("a=" + "b".repeat(2_200_000))), 413, "payload_too_large"));
        rows.add(api("a method not allowed", credentials -> RawHttp.request("DELETE", ascii(RUN), credentials, new byte[0]), 405, "method_not_allowed"));
        rows.add(api("a body that is not JSON", credentials -> RawHttp.request("POST", ascii(RUN), with(credentials, ascii("Content-Type: text/plain")), ascii("q")), 415, "unsupported_media_type"));
        rows.add(api("a body over 1 MiB announced", credentials -> RawHttp.request("POST", ascii(RUN), with(json(credentials), ascii("Content-Length: 99999999")), new byte[0]), 413, "payload_too_large"));
        for (Port port : Port.values()) {
            rows.add(new Row("CR inside a header value", port, credentials -> get("/actuator/health", List.of(bytes("x-note: a", '\r', "b"))), 400, "invalid_request"));
            rows.add(new Row("NUL inside a header value", port, credentials -> get("/actuator/health", List.of(bytes("x-note: a", 0, "b"))), 400, "invalid_request"));
            rows.add(new Row("a header line without a colon", port, credentials -> get("/actuator/health", List.of(ascii("garbage"))), 400, "invalid_request"));
            rows.add(new Row("more than 100 headers", port, credentials -> get("/actuator/health", manyHeaders(101)), 400, "invalid_request"));
            rows.add(new Row("an encoded '/'", port, credentials -> get("/actuator/a%2Fb", List.of()), 400, "invalid_request"));
            rows.add(new Row("a 10 KB path", port, credentials -> get("/" + "a".repeat(10_240), List.of()), 414, "uri_too_long"));
            rows.add(new Row("more than 8 KiB of headers", port, credentials -> get("/actuator/health", List.of(ascii("x-padding: " + "p".repeat(9_000)))), 431, "headers_too_large"));
            rows.add(new Row("an Accept for another charset than UTF-8", port, credentials -> get("/actuator/health", List.of(ascii("Accept: application/json; charset=utf-16"))), 406, "not_acceptable"));
            rows.add(new Row("an unknown path", port, credentials -> get("/no/such/path", List.of()), 404, "not_found"));
            rows.add(new Row("TRACE", port, credentials -> RawHttp.request("TRACE", ascii("/actuator/health"), List.of(), new byte[0]), 405, "method_not_allowed"));
            rows.add(new Row("HTTP/1.1 without Host", port, credentials -> ascii("GET /actuator/health HTTP/1.1\r\nConnection: close\r\n\r\n"), 400, "invalid_request"));
            rows.add(new Row("HTTP/2.5", port, credentials -> ascii("GET /actuator/health HTTP/2.5\r\nHost: x\r\nConnection: close\r\n\r\n"), 505, "http_version_not_supported"));
            rows.add(new Row("a request line that is not HTTP", port, credentials -> ascii("GARBAGE\r\n\r\n"), 400, "invalid_request"));
        }
        return rows.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void isRefusedWithItsProblem(Row row) {
        URI base = switch (row.port) {
            case API -> pipeline.api(0);
            case WORKER -> pipeline.worker(0);
            case RELAY -> pipeline.relay(0);
        };
        RawHttp.Response response = RawHttp.send(base, row.request.apply(credentials()), TIMEOUT);

        assertThat(response.status()).as(response.text()).isEqualTo(row.status);
        assertThat(Problems.assertProblem(response)).isEqualTo(row.code);
        assertThat(response.text()).doesNotContain(pipeline.apiKey).doesNotContain("<html");
    }

    @Test
    void wellFormedUtf8InBodyAndQueryIsAccepted() {
        byte[] body = bytes("{\"query\":\"caf", 0xC3, 0xA9, " ", 0xF0, 0x9F, 0x98, 0x80, "\"}");
        RawHttp.Response response = RawHttp.send(pipeline.api(0), RawHttp.request("POST", ascii(RUN), json(credentials()), body), TIMEOUT);

        assertThat(response.status()).as(response.text()).isEqualTo(200);
        assertThat(response.text()).isEqualTo("Echo #1: café 😀");
    }

    private List<byte[]> credentials() {
        return List.of(ascii("x-api-key: " + pipeline.apiKey), ascii("x-project-id: " + pipeline.projectId));
    }

    private static Row api(String name, Function<List<byte[]>, byte[]> request, int status, String code) {
        return new Row(name, Port.API, request, status, code);
    }

    private static Row body(String name, String path, byte[] body, int status, String code) {
        return api(name, credentials -> RawHttp.request("POST", ascii(path), json(credentials), body), status, code);
    }

    private static byte[] post(String target, List<byte[]> headers) {
        return RawHttp.request("POST", ascii(target), json(headers), ascii("{\"query\":\"q\"}"));
    }

    private static byte[] get(String target, List<byte[]> headers) {
        return RawHttp.request("GET", ascii(target), headers, new byte[0]);
    }

    private static List<byte[]> json(List<byte[]> headers) {
        return headers.stream().anyMatch(h -> new String(h, java.nio.charset.StandardCharsets.ISO_8859_1).toLowerCase().startsWith("content-type:"))
                ? headers : with(headers, ascii("Content-Type: application/json"));
    }

    private static List<byte[]> with(List<byte[]> headers, byte[] more) {
        List<byte[]> all = new ArrayList<>(headers);
        all.add(more);
        return all;
    }

    private static List<byte[]> manyHeaders(int count) {
        List<byte[]> headers = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            headers.add(ascii("x-h" + i + ": v"));
        }
        return headers;
    }

    /** Text and single bytes (ints 0–255 or chars), in order. */
    static byte[] bytes(Object... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Object part : parts) {
            switch (part) {
                case String text -> out.writeBytes(ascii(text));
                case Integer b -> out.write(b);
                case Character c -> out.write(c);
                default -> throw new IllegalArgumentException(String.valueOf(part));
            }
        }
        return out.toByteArray();
    }
}
