package io.agentrun.e2e.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.e2e.fixture.SharedPipeline;
import io.agentrun.e2e.fixture.Transcript;
import io.agentrun.api.caller.KeyStore;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.id.Ids;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.store.ThreadStore;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

/**
 * Every refusal of the run and stream endpoints, as a table: each must be RFC 9457 problem+json with its
 * stable code, decided before any SSE byte.
 */
@ExtendWith({RealInfrastructure.class, SharedPipeline.class})
class ErrorTableIT {

    private static final JsonCodec CODEC = new JsonCodec();
    private static final String OTHER_PROJECT = "other-" + Ids.newRunId().substring(4, 12);
    private static final String OTHER_KEY = "ar_sk_test_other_" + Ids.newRunId().substring(4);

    static Pipeline pipeline;
    static URI deadKafkaApi;
    static String busyThread;
    static String foreignThread;
    static String idleThread;

    enum Endpoint { RUN, STREAM }

    enum Target { API, API_WITHOUT_KAFKA }

    record Row(String name, Endpoint endpoint, Target target, Map<String, String> headers, String body, String threadId,
            int status, String code) {
        Row withAgent(String agent) {
            Map<String, String> with = new HashMap<>(headers);
            with.put("x-test-agent", agent);
            return new Row(name, endpoint, target, with, body, threadId, status, code);
        }

        @Override
        public String toString() {
            return endpoint + ": " + name + " -> " + status + " " + code;
        }
    }

    @BeforeAll
    static void start(Pipeline project) {
        pipeline = project;
        deadKafkaApi = Pipeline.baseOf(pipeline.startApi(Map.of(
                "spring.kafka.bootstrap-servers", "localhost:1",
                "spring.kafka.admin.auto-create", false,
                "agentrun.kafka.request-timeout", "1s")));
        ThreadStore threads = pipeline.apiBean(ThreadStore.class);
        busyThread = Ids.newThreadId();
        threads.create(busyThread, pipeline.projectId, "assistant");
        threads.tryLock(busyThread, Ids.newRunId());
        idleThread = Ids.newThreadId();
        threads.create(idleThread, pipeline.projectId, "assistant");
        foreignThread = Ids.newThreadId();
        threads.create(foreignThread, OTHER_PROJECT, "assistant");
        pipeline.apiBean(KeyStore.class).registerBootstrapKey(OTHER_KEY, OTHER_PROJECT);
    }

    static Stream<Row> rows() {
        List<Row> rows = new ArrayList<>();
        for (Endpoint endpoint : Endpoint.values()) {
            Map<String, String> json = Map.of("content-type", "application/json");
            rows.add(row("malformed JSON", endpoint, json, "{\"query\": ", 400, "invalid_request"));
            rows.add(row("body not an object", endpoint, json, "[\"hello\"]", 400, "invalid_request"));
            rows.add(row("missing query", endpoint, json, "{\"images\": []}", 400, "invalid_request"));
            rows.add(row("blank query", endpoint, json, "{\"query\": \"  \"}", 400, "invalid_request"));
            rows.add(row("query not a string", endpoint, json, "{\"query\": 42}", 400, "invalid_request"));
            rows.add(row("images not an array", endpoint, json, "{\"query\": \"q\", \"images\": \"x.png\"}", 400, "invalid_request"));
            rows.add(row("documents with a number", endpoint, json, "{\"query\": \"q\", \"documents\": [1]}", 400, "invalid_request"));
            rows.add(row("contexts too long", endpoint, json,
                    "{\"query\": \"q\", \"contexts\": [" + "\"c\",".repeat(16) + "\"c\"]}", 400, "invalid_request"));
            rows.add(row("metadata not an object", endpoint, json, "{\"query\": \"q\", \"metadata\": [1]}", 400, "invalid_request"));
            rows.add(row("unknown field", endpoint, json, "{\"qeury\": \"q\"}", 400, "invalid_request"));
            rows.add(row("unknown context", endpoint, json, "{\"query\": \"q\", \"contexts\": [\"no-such-context\"]}", 400, "invalid_request"));
            rows.add(row("body over 1 MiB", endpoint, json, "{\"query\": \"" + "a".repeat(1024 * 1024) + "\"}", 413, "payload_too_large"));
            rows.add(row("text/plain body", endpoint, Map.of("content-type", "text/plain"), "{\"query\": \"q\"}", 415, "unsupported_media_type"));
            rows.add(row("form body", endpoint, Map.of("content-type", "application/x-www-form-urlencoded"), "query=q", 415, "unsupported_media_type"));
            rows.add(row("missing x-api-key", endpoint, withCredentials(json, null, "keep"), ApiClient.body("q"), 401, "unauthorized"));
            rows.add(row("wrong x-api-key", endpoint, withCredentials(json, "ar_sk_wrong", "keep"), ApiClient.body("q"), 401, "unauthorized"));
            rows.add(row("missing x-project-id", endpoint, withCredentials(json, "keep", null), ApiClient.body("q"), 401, "unauthorized"));
            rows.add(row("key of another project", endpoint, withCredentials(json, OTHER_KEY, "keep"), ApiClient.body("q"), 403, "forbidden"));
            rows.add(new Row("unknown agent", endpoint, Target.API, json, ApiClient.body("q"), null, 404, "agent_not_found")
                    .withAgent("no-such-agent"));
            rows.add(new Row("Kafka unavailable", endpoint, Target.API_WITHOUT_KAFKA, json, ApiClient.body("q"), null, 503, "upstream_unavailable"));
        }
        Map<String, String> json = Map.of("content-type", "application/json");
        rows.add(new Row("unknown thread", Endpoint.STREAM, Target.API, json, ApiClient.body("q"), Ids.newThreadId(), 404, "thread_not_found"));
        rows.add(new Row("malformed thread id", Endpoint.STREAM, Target.API, json, ApiClient.body("q"), "../../etc", 404, "thread_not_found"));
        rows.add(new Row("thread of another project", Endpoint.STREAM, Target.API, json, ApiClient.body("q"), "FOREIGN", 404, "thread_not_found"));
        rows.add(new Row("thread with an active run", Endpoint.STREAM, Target.API, json, ApiClient.body("q"), "BUSY", 409, "thread_busy"));
        return rows.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void isRefusedWithAProblem(Row row) {
        URI base = row.target == Target.API ? pipeline.api(0) : deadKafkaApi;
        ApiClient client = new ApiClient(base, Map.of());
        Map<String, String> headers = credentialsOf(row.headers);
        String agent = row.headers.getOrDefault("x-test-agent", "assistant");
        String threadId = switch (String.valueOf(row.threadId)) {
            case "BUSY" -> busyThread;
            case "FOREIGN" -> foreignThread;
            default -> row.threadId;
        };
        int status;
        String contentType;
        String body;
        if (row.endpoint == Endpoint.STREAM) {
            var response = client.stream(agent, threadId, row.body, headers);
            status = response.status();
            contentType = response.header("content-type");
            body = response.body();
            assertThat(response.events()).as("no SSE event before validation").isEmpty();
        } else {
            var response = client.run(agent, row.body, headers);
            status = response.statusCode();
            contentType = response.headers().firstValue("content-type").orElse("");
            body = response.body();
        }
        assertThat(status).isEqualTo(row.status);
        assertThat(contentType).startsWith("application/problem+json");
        JsonNode problem = CODEC.mapper().readTree(body);
        assertThat(problem.get("code").asString()).isEqualTo(row.code);
        assertThat(problem.get("status").asInt()).isEqualTo(row.status);
        assertThat(problem.get("type").asString()).isEqualTo("urn:agentrun:problem:" + row.code);
        assertThat(problem.get("title").asString()).isNotBlank();
        assertThat(problem.get("detail").asString()).isNotBlank().doesNotContain(pipeline.apiKey);
    }

    @Test
    void whenKafkaIsDownNothingIsLeftBehindAndTheThreadStaysUsable() {
        ApiClient dead = new ApiClient(deadKafkaApi, pipeline.projectId, pipeline.apiKey);
        var refused = dead.stream("assistant", idleThread, ApiClient.body("lost?"));
        assertThat(refused.status()).isEqualTo(503);

        ThreadStore threads = pipeline.apiBean(ThreadStore.class);
        assertThat(threads.lockHolder(idleThread)).isEmpty();
        var accepted = new ApiClient(pipeline.api(0), pipeline.projectId, pipeline.apiKey)
                .stream("assistant", idleThread, ApiClient.body("still here"));
        assertThat(accepted.status()).isEqualTo(200);
        assertThat(Transcript.of(accepted.events()).runEnd().output()).isEqualTo("Echo #1: still here");
    }

    private static Row row(String name, Endpoint endpoint, Map<String, String> headers, String body, int status, String code) {
        return new Row(name, endpoint, Target.API, headers, body, null, status, code);
    }

    /** "keep" = the pipeline's own credential, null = leave the header out, anything else = send that. */
    private static Map<String, String> withCredentials(Map<String, String> base, String key, String project) {
        Map<String, String> headers = new HashMap<>(base);
        headers.put("x-test-key", key == null ? "OMIT" : key);
        headers.put("x-test-project", project == null ? "OMIT" : project);
        return headers;
    }

    private static Map<String, String> credentialsOf(Map<String, String> rowHeaders) {
        Map<String, String> headers = new HashMap<>(rowHeaders);
        String key = headers.remove("x-test-key");
        String project = headers.remove("x-test-project");
        headers.remove("x-test-agent");
        key = key == null || key.equals("keep") ? pipeline.apiKey : key;
        project = project == null || project.equals("keep") ? pipeline.projectId : project;
        if (!key.equals("OMIT")) {
            headers.put("x-api-key", key);
        }
        if (!project.equals("OMIT")) {
            headers.put("x-project-id", project);
        }
        return headers;
    }
}
