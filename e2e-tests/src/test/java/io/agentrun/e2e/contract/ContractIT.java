package io.agentrun.e2e.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.OpenApiContract;
import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.e2e.fixture.SseEvent;
import io.agentrun.infra.process.Ports;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.id.Ids;
import io.agentrun.model.testing.TestData;
import io.agentrun.platform.store.AgentCatalog;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The OpenAPI document served by the api, and every documented operation called once for its success and once
 * for an error, each response checked against the document by {@link ApiClient} (as in every other suite). The
 * other suites add their own responses: {@code target/contract-coverage.txt} lists what all of them checked.
 */
@ExtendWith(RealInfrastructure.class)
class ContractIT {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    static Pipeline pipeline;
    static ApiClient client;

    static Path files;

    @BeforeAll
    static void start() throws Exception {
        // Uploads on disk behind this api node, so that the signed URLs it hands out are its own.
        files = Files.createTempDirectory("contract-it");
        int port = Ports.reserve();
        pipeline = Pipeline.start(1, 1, 1, Map.of("server.port", port, "agentrun.storage.backend", "local",
                "agentrun.storage.signing-secret", "contract-it-" + UUID.randomUUID(),
                "agentrun.storage.local.dir", files.toString(), "agentrun.storage.local.public-url", "http://localhost:" + port));
        client = new ApiClient(pipeline.api(0), pipeline.projectId, pipeline.apiKey);
    }

    @AfterAll
    static void stop() {
        if (pipeline != null) {
            pipeline.close();
        }
        org.springframework.util.FileSystemUtils.deleteRecursively(files.toFile());
    }

    @Test
    void theApiServesTheDocumentInTheRepositoryAndAPageThatRendersIt() throws Exception {
        JsonNode inRepository = YAMLMapper.builder().build().readTree(Files.readString(Path.of("../docs/openapi.yaml")));

        HttpResponse<String> json = plain("/v3/api-docs");
        assertThat(json.statusCode()).isEqualTo(200);
        assertThat(json.headers().firstValue("content-type").orElse("")).startsWith("application/json");
        assertThat(JSON.readTree(json.body())).isEqualTo(inRepository);

        HttpResponse<String> yaml = plain("/v3/api-docs.yaml");
        assertThat(yaml.statusCode()).isEqualTo(200);
        assertThat(YAMLMapper.builder().build().readTree(yaml.body())).isEqualTo(inRepository);

        HttpResponse<String> page = plain("/docs");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("SwaggerUIBundle({url: \"/v3/api-docs\"");
        for (String asset : List.of("swagger-ui-bundle.js", "swagger-ui.css")) {
            String path = page.body().split("\"")[indexOfAttribute(page.body(), asset)];
            HttpResponse<String> served = plain(path);
            assertThat(served.statusCode()).as(path).isEqualTo(200);
            assertThat(served.body()).as(path).hasSizeGreaterThan(10_000);
        }
    }

    @Test
    void everyOperationAnswersAsDocumentedForSuccessAndForAnError() throws Exception {
        Map<String, Long> before = OpenApiContract.V1.seen();

        // Streams, joins, cancel and the reads of one run.
        var stream = client.stream("assistant", null, ApiClient.body("contract"));
        assertThat(stream.status()).isEqualTo(200);
        String runId = stream.header("x-run-id");
        String threadId = stream.header("x-thread-id");
        assertThat(client.stream("assistant", threadId, ApiClient.body("again")).status()).isEqualTo(200);
        assertThat(client.stream("nobody", null, ApiClient.body("x")).status()).isEqualTo(404);
        assertThat(client.join(threadId, runId, "2").status()).isEqualTo(200);
        assertThat(client.join(threadId, runId, "999").status()).as("the client has run_end already").isEqualTo(204);
        assertThat(client.join(threadId, Ids.newRunId(), null).status()).isEqualTo(404);
        assertThat(client.cancel(threadId, runId).statusCode()).isIn(200, 202, 409);
        assertThat(client.cancel(threadId, Ids.newRunId()).statusCode()).isEqualTo(404);
        assertThat(client.get("/api/v1/runs/" + runId).statusCode()).isEqualTo(200);
        assertThat(client.get("/api/v1/runs/" + Ids.newRunId()).statusCode()).isEqualTo(404);
        assertThat(client.get("/api/v1/runs?limit=2&status=completed").statusCode()).isEqualTo(200);
        assertThat(client.get("/api/v1/runs?status=sleeping").statusCode()).isEqualTo(400);
        assertThat(client.get("/api/v1/threads/" + threadId).statusCode()).isEqualTo(200);
        assertThat(client.get("/api/v1/threads/" + Ids.newThreadId()).statusCode()).isEqualTo(404);
        assertThat(client.get("/api/v1/threads/" + threadId + "/messages?limit=2").statusCode()).isEqualTo(200);
        assertThat(client.get("/api/v1/threads/" + threadId + "/messages?limit=0").statusCode()).isEqualTo(400);
        assertThat(client.get("/api/v1/threads/" + threadId + "/runs?limit=1").statusCode()).isEqualTo(200);
        assertThat(client.get("/api/v1/threads/" + threadId + "/runs?before=not-a-cursor").statusCode()).isEqualTo(400);

        // One-off runs in both representations, and refusals before anything runs.
        assertThat(client.run("assistant", ApiClient.body("one-off"), Map.of("content-type", "application/json")).statusCode()).isEqualTo(200);
        assertThat(client.run("assistant", ApiClient.body("one-off"),
                Map.of("content-type", "application/json", "accept", "text/plain")).statusCode()).isEqualTo(200);
        assertThat(client.run("assistant", "{\"query\":", Map.of("content-type", "application/json")).statusCode()).isEqualTo(400);
        assertThat(client.run("assistant", ApiClient.body("x"), Map.of("content-type", "text/csv")).statusCode()).isEqualTo(415);
        assertThat(client.run("assistant", ApiClient.body("x"),
                Map.of("content-type", "application/json", "accept", "image/png")).statusCode()).isEqualTo(406);
        String key = "contract-" + UUID.randomUUID();
        assertThat(client.run("assistant", ApiClient.body("same"), Map.of("content-type", "application/json", "Idempotency-Key", key)).statusCode()).isEqualTo(200);
        assertThat(client.run("assistant", ApiClient.body("other"), Map.of("content-type", "application/json", "Idempotency-Key", key)).statusCode()).isEqualTo(422);
        // Background runs.
        assertThat(client.background("assistant", null, ApiClient.body("background"), Map.of()).statusCode()).isEqualTo(202);
        assertThat(client.background("nobody", null, ApiClient.body("x"), Map.of()).statusCode()).isEqualTo(404);
        ApiClient stranger = new ApiClient(pipeline.api(0), pipeline.projectId, "ar_sk_test_not_a_key_" + UUID.randomUUID());
        assertThat(stranger.run("assistant", ApiClient.body("x"), Map.of("content-type", "application/json")).statusCode()).isEqualTo(401);

        // Uploads.
        JsonNode upload = JSON.readTree(client.requestUpload("notes.txt", "text/plain", "agent_input").body());
        assertThat(ApiClient.putFile(URI.create(upload.get("signedUrl").asString()), "text/plain", "hello".getBytes(StandardCharsets.UTF_8)).statusCode()).isEqualTo(200);
        assertThat(client.viewUrl(upload.get("blobPath").asString()).statusCode()).isEqualTo(200);
        String missing = upload.get("blobPath").asString().replace(upload.get("fileId").asString(), Ids.newFileId());
        assertThat(client.viewUrl(missing).statusCode()).isEqualTo(404);
        assertThat(client.requestUpload("a.html", "text/html", "agent_input").statusCode()).isEqualTo(415);

        // A decision on a tool call a run waits for, once recorded, once refused, once for no such call.
        pipeline.apiBean(AgentCatalog.class).put(pipeline.projectId,
                TestData.anAgent().id("approver").approvalRequired(java.time.Duration.ofHours(1), "calculator").build());
        HttpResponse<InputStream> waiting = client.openStream("approver", null, ApiClient.body("/tool calculator {\"expression\": \"2*3\"}"));
        List<SseEvent> paused = ApiClient.readUntil(waiting.body(), e -> !"approval_required".equals(e.event()));
        String callId = JSON.readTree(paused.getLast().data()).at("/data/tool_call_id").asString();
        String approvals = "/api/v1/threads/" + waiting.headers().firstValue("x-thread-id").orElseThrow() + "/runs/"
                + waiting.headers().firstValue("x-run-id").orElseThrow() + "/approvals/";
        Map<String, String> json = Map.of("content-type", "application/json");
        assertThat(client.exchange("POST", approvals + "call_none", json, "{\"decision\": \"deny\"}").statusCode()).isEqualTo(404);
        assertThat(client.exchange("POST", approvals + callId, json, "{\"decision\": \"approve\"}").statusCode()).isEqualTo(200);
        assertThat(client.exchange("POST", approvals + callId, json, "{\"decision\": \"deny\"}").statusCode()).isEqualTo(409);
        assertThat(ApiClient.readUntil(waiting.body(), e -> !"run_end".equals(e.event()))).extracting(SseEvent::event).contains("approval_decided");

        // Deletion, and what a deleted thread answers.
        assertThat(client.exchange("DELETE", "/api/v1/threads/" + threadId, Map.of(), null).statusCode()).isEqualTo(200);
        assertThat(client.exchange("DELETE", "/api/v1/threads/" + threadId, Map.of(), null).statusCode()).isEqualTo(404);
        assertThat(client.stream("assistant", threadId, ApiClient.body("after")).status()).isIn(404, 410);

        Map<String, Long> after = OpenApiContract.V1.seen();
        Map<String, Long> checkedHere = new HashMap<>();
        after.forEach((response, count) -> checkedHere.put(response, count - before.getOrDefault(response, 0L)));
        List<String> operations = OpenApiContract.V1.documentedResponses().stream()
                .filter(response -> response.startsWith("GET ") || response.startsWith("POST ") || response.startsWith("DELETE "))
                .map(response -> response.substring(0, response.lastIndexOf(' ')))
                .distinct().toList();
        assertThat(operations).hasSizeGreaterThanOrEqualTo(11).allSatisfy(operation -> {
            assertThat(checkedHere.entrySet().stream().filter(e -> e.getKey().startsWith(operation + " ") && e.getValue() > 0)
                    .map(Map.Entry::getKey).toList()).as("checked responses of " + operation).hasSizeGreaterThanOrEqualTo(2);
        });
        assertThat(checkedHere.entrySet().stream().filter(e -> e.getKey().startsWith("event ") && e.getValue() > 0)
                .map(e -> e.getKey().substring(6)).toList()).contains("run_start", "message_delta", "message_final", "run_end",
                        "approval_required", "approval_decided");
    }

    @Test
    void theServedDocumentPassesRedoclysRecommendedRules() throws Exception {
        HttpResponse<String> json = plain("/v3/api-docs");
        assertThat(json.statusCode()).isEqualTo(200);
        Path served = Files.createTempFile("api-docs", ".json");
        try {
            Files.writeString(served, json.body());
            OpenApiLint.assertClean(served);
        } finally {
            Files.delete(served);
        }
    }

    /** runOnce's representation for each kind of {@code Accept}, as its description in the document says. */
    @Test
    void aOneOffRunAnswersTheRepresentationItsAcceptChoosesAsDocumented() {
        Map<String, String> answers = new LinkedHashMap<>();
        for (String accept : List.of("", "*/*", "text/*", "text/plain", "application/json",
                "text/plain, application/json;q=0.1", "application/json;q=0, */*", "application/*", "image/png")) {
            Map<String, String> headers = new HashMap<>(Map.of("content-type", "application/json"));
            if (!accept.isEmpty()) {
                headers.put("accept", accept);
            }
            HttpResponse<String> response = client.run("assistant", ApiClient.body("accept " + accept), headers);
            answers.put(accept, response.statusCode() + " " + response.headers().firstValue("content-type").orElse("").split(";")[0]);
        }

        assertThat(answers).containsExactlyEntriesOf(orderedMap(
                "", "200 text/plain", "*/*", "200 text/plain", "text/*", "200 text/plain", "text/plain", "200 text/plain",
                "application/json", "200 application/json", "text/plain, application/json;q=0.1", "200 application/json",
                "application/json;q=0, */*", "200 text/plain",
                "application/*", "406 application/problem+json", "image/png", "406 application/problem+json"));
    }

    private static Map<String, String> orderedMap(String... keysAndValues) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put(keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }

    private static int indexOfAttribute(String page, String asset) {
        String[] parts = page.split("\"");
        for (int i = 0; i < parts.length; i++) {
            if (parts[i].endsWith(asset)) {
                return i;
            }
        }
        throw new AssertionError(asset + " is not referenced by the page");
    }

    private static HttpResponse<String> plain(String path) throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            return http.send(HttpRequest.newBuilder(pipeline.api(0).resolve(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
        }
    }
}
