package io.agentrun.e2e.suites;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.e2e.fixture.SharedPipeline;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

/**
 * {@code GET /api/v1/runs}: a project's runs, newest first, paged, filtered by agent, status and creation time, from the
 * project's runs index the run's start keeps; never another project's run, nor a deleted thread's; a filter scans a
 * bounded part of the index and hands back a cursor; operators read the same through {@code /admin/v1}.
 */
@ExtendWith({RealInfrastructure.class, SharedPipeline.class})
class RunsListIT {

    private static final JsonCodec CODEC = new JsonCodec();
    private static final String SHOP = "https://shop.example.com";

    static Pipeline shared;
    static Pipeline project;
    static ApiClient client;
    static ApiClient admin;
    /** The project's runs, newest first: 4 of assistant, 2 of second (completed), 1 cancelled (assistant). */
    static final List<String> runs = new ArrayList<>();
    static String cancelled;
    static String foreign;

    @BeforeAll
    static void start(Pipeline pipeline) {
        shared = pipeline;
        project = pipeline.newProject();
        client = new ApiClient(pipeline.api(0), project.projectId, project.apiKey);
        admin = new ApiClient(pipeline.api(0), Map.of("Authorization", "Bearer " + pipeline.adminToken));
        HttpResponse<String> second = admin.exchange("PUT", "/admin/v1/projects/" + project.projectId + "/agents/second",
                Map.of("content-type", "application/json"), "{\"provider\":\"scripted\"}");
        assertThat(second.statusCode()).as(second.body()).isIn(200, 201);
        Pipeline other = pipeline.newProject();
        foreign = new ApiClient(pipeline.api(0), other.projectId, other.apiKey)
                .stream("assistant", null, ApiClient.body("elsewhere")).header("x-run-id");

        for (String agent : List.of("assistant", "second", "assistant", "second", "assistant", "assistant")) {
            var run = client.stream(agent, null, ApiClient.body("list me"));
            assertThat(run.status()).isEqualTo(200);
            runs.addFirst(run.header("x-run-id"));
        }
        HttpResponse<String> slow = client.background("assistant", null, ApiClient.body("/slow 500 a b c d e f g h"), Map.of());
        assertThat(slow.statusCode()).as(slow.body()).isEqualTo(202);
        cancelled = CODEC.mapper().readTree(slow.body()).get("run_id").asString();
        String thread = CODEC.mapper().readTree(slow.body()).get("thread_id").asString();
        await().atMost(Duration.ofSeconds(20)).until(() -> "running".equals(read("/api/v1/runs/" + cancelled).get("status").asString()));
        assertThat(client.cancel(thread, cancelled).statusCode()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(20)).until(() -> "cancelled".equals(read("/api/v1/runs/" + cancelled).get("status").asString()));
        runs.addFirst(cancelled);
    }

    @Test
    void theProjectsRunsArePagedNewestFirstWithoutOutputAndWithoutAnotherProjectsRun() {
        List<JsonNode> items = new ArrayList<>();
        List<Integer> sizes = new ArrayList<>();
        String before = null;
        do {
            JsonNode page = read("/api/v1/runs?limit=3" + (before == null ? "" : "&before=" + before));
            page.get("runs").forEach(items::add);
            sizes.add(page.get("runs").size());
            before = page.path("next_before").isString() ? page.get("next_before").asString() : null;
        } while (before != null);

        assertThat(sizes).containsExactly(3, 3, 1);
        assertThat(items).extracting(run -> run.get("run_id").asString()).containsExactlyElementsOf(runs).doesNotContain(foreign);
        assertThat(items).extracting(run -> Instant.parse(run.get("created_at").asString()))
                .isSortedAccordingTo(java.util.Comparator.reverseOrder());
        JsonNode completed = items.get(1);
        assertThat(completed.get("status").asString()).isEqualTo("completed");
        assertThat(completed.get("usage").get("output_tokens").asLong()).isPositive();
        assertThat(completed.has("output")).as("a list leaves the output to the run's own read").isFalse();
        assertThat(read("/api/v1/runs/" + completed.get("run_id").asString()).get("output").asString()).isEqualTo("Echo #1: list me");
    }

    @Test
    void eachFilterNarrowsTheList() {
        assertThat(ids("/api/v1/runs?agent_id=second")).containsExactly(runs.get(3), runs.get(5));
        assertThat(ids("/api/v1/runs?status=cancelled")).containsExactly(cancelled);
        assertThat(ids("/api/v1/runs?status=completed")).containsExactlyElementsOf(runs.subList(1, 7));
        assertThat(ids("/api/v1/runs?status=completed,cancelled&agent_id=assistant"))
                .containsExactly(runs.get(0), runs.get(1), runs.get(2), runs.get(4), runs.get(6));
        assertThat(ids("/api/v1/runs?status=queued,running,waiting")).isEmpty();

        String middle = read("/api/v1/runs/" + runs.get(3)).get("created_at").asString();
        assertThat(ids("/api/v1/runs?created_before=" + encode(middle))).containsExactlyElementsOf(runs.subList(4, 7));
        assertThat(ids("/api/v1/runs?created_after=" + encode(middle))).containsExactlyElementsOf(runs.subList(0, 3));
        assertThat(ids("/api/v1/runs?created_after=" + encode(middle) + "&agent_id=assistant&limit=1"))
                .containsExactly(runs.get(0));
    }

    @Test
    void badFiltersAndAPublishableKeyAreRefusedWithAProblem() {
        assertProblem(client.get("/api/v1/runs?status=finished"), 400, "invalid_request");
        assertProblem(client.get("/api/v1/runs?created_after=yesterday"), 400, "invalid_request");
        assertProblem(client.get("/api/v1/runs?before=not-a-cursor"), 400, "invalid_request");
        assertProblem(client.get("/api/v1/runs?limit=1000"), 400, "invalid_request");
        String body = "{\"kind\":\"publishable\",\"label\":\"widget\",\"environment\":\"development\",\"agents\":[\"assistant\"],"
                + "\"allowed_origins\":[\"" + SHOP + "\"]}";
        HttpResponse<String> key = admin.exchange("POST", "/admin/v1/projects/" + project.projectId + "/keys",
                Map.of("content-type", "application/json"), body);
        assertThat(key.statusCode()).as(key.body()).isEqualTo(201);
        ApiClient browser = new ApiClient(shared.api(0), Map.of("x-api-key", CODEC.mapper().readTree(key.body()).get("api_key").asString(),
                "Origin", SHOP));
        assertProblem(browser.get("/api/v1/runs"), 403, "forbidden");
    }

    @Test
    void aDeletedThreadsRunsLeaveTheList() {
        var first = client.stream("assistant", null, ApiClient.body("forget me"));
        String threadId = first.header("x-thread-id");
        var second = client.stream("assistant", threadId, ApiClient.body("and this"));
        assertThat(ids("/api/v1/runs?limit=2")).containsExactly(second.header("x-run-id"), first.header("x-run-id"));

        HttpResponse<String> deleted = client.exchange("DELETE", "/api/v1/threads/" + threadId, Map.of(), null);
        assertThat(deleted.statusCode()).as(deleted.body()).isEqualTo(200);

        assertThat(ids("/api/v1/runs?limit=100")).doesNotContain(first.header("x-run-id"), second.header("x-run-id"))
                .containsAll(runs);
        assertThat(shared.redis().sync().zscore(RedisKeys.projectRuns(project.projectId), first.header("x-run-id")))
                .as("out of the project's index").isNull();
    }

    @Test
    void aFilterScansABoundedPartOfTheIndexAndHandsBackACursor() {
        Pipeline own = shared.newProject();
        ApiClient owner = new ApiClient(shared.api(0), own.projectId, own.apiKey);
        String old = owner.stream("assistant", null, ApiClient.body("under the others")).header("x-run-id");
        // Newer entries whose runs Redis no longer has (expired, lost): skipped, and a request looks at 1,000 at most.
        var redis = shared.redis().sync();
        long now = System.currentTimeMillis();
        for (int i = 0; i < 1_100; i++) {
            redis.zadd(RedisKeys.projectRuns(own.projectId), (double) now + 1_000 + i, "run_gone" + i);
        }
        JsonNode first = CODEC.mapper().readTree(owner.get("/api/v1/runs?status=completed").body());
        assertThat(first.get("runs").size()).isZero();
        assertThat(first.get("next_before").asString()).as("a cursor past the entries looked at").isNotEmpty();
        JsonNode second = CODEC.mapper().readTree(owner.get("/api/v1/runs?status=completed&before=" + first.get("next_before").asString())
                .body());
        assertThat(second.get("runs")).extracting(run -> run.get("run_id").asString()).containsExactly(old);
        assertThat(second.has("next_before")).isFalse();
    }

    @Test
    void anOperatorReadsAProjectsRunsAndARunThroughTheAdminRoutes() {
        JsonNode page = CODEC.mapper().readTree(admin.get("/admin/v1/projects/" + project.projectId + "/runs?agent_id=second").body());
        assertThat(page.get("runs")).extracting(run -> run.get("run_id").asString()).containsExactly(runs.get(3), runs.get(5));
        HttpResponse<String> run = admin.get("/admin/v1/runs/" + runs.get(1));
        assertThat(run.statusCode()).as(run.body()).isEqualTo(200);
        JsonNode view = CODEC.mapper().readTree(run.body());
        assertThat(view.get("run").get("run_id").asString()).isEqualTo(runs.get(1));
        assertThat(view.get("project_id").asString()).isEqualTo(project.projectId);
        assertThat(view.get("run").get("output").asString()).isEqualTo("Echo #1: list me");
        assertThat(view.get("ownership").get("worker").asString()).isNotEmpty();
        assertThat(view.get("ownership").get("epoch").asInt()).isEqualTo(1);
        assertProblem(admin.get("/admin/v1/runs/run_none"), 404, "run_not_found");
        assertProblem(client.get("/admin/v1/runs/" + runs.get(1)), 401, "unauthorized");
    }

    private static List<String> ids(String path) {
        List<String> ids = new ArrayList<>();
        read(path).get("runs").forEach(run -> ids.add(run.get("run_id").asString()));
        return ids;
    }

    private static JsonNode read(String path) {
        HttpResponse<String> response = client.get(path);
        assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
        return CODEC.mapper().readTree(response.body());
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    private static void assertProblem(HttpResponse<String> response, int status, String code) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("content-type").orElse("")).startsWith("application/problem+json");
        assertThat(CODEC.mapper().readTree(response.body()).get("code").asString()).isEqualTo(code);
    }
}
