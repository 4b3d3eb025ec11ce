package io.agentrun.e2e.suites;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.SharedPipeline;
import io.agentrun.api.caller.KeyStore;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.id.Ids;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/**
 * Reading runs and threads back: every terminal status, a run read while it runs, a thread's history and runs
 * paged through, and the same 404 for another project's ids as for missing ones.
 */
@ExtendWith({RealInfrastructure.class, SharedPipeline.class})
class ReadIT {

    private static final JsonCodec CODEC = new JsonCodec();
    private static final String OTHER_PROJECT = "other-" + Ids.newRunId().substring(4, 12);
    private static final String OTHER_KEY = "ar_sk_test_other_" + Ids.newRunId().substring(4);
    private static final String SHOP = "https://shop.example.com";

    static Pipeline pipeline;
    static ApiClient client;
    static ApiClient admin;

    @BeforeAll
    static void start(Pipeline project) {
        pipeline = project;
        client = new ApiClient(pipeline.api(0), pipeline.projectId, pipeline.apiKey);
        admin = new ApiClient(pipeline.api(0), Map.of("Authorization", "Bearer " + pipeline.adminToken));
        pipeline.apiBean(KeyStore.class).registerBootstrapKey(OTHER_KEY, OTHER_PROJECT);
        HttpResponse<String> quick = admin.exchange("PUT", "/admin/v1/projects/" + pipeline.projectId + "/agents/quick",
                Map.of("content-type", "application/json"), "{\"provider\":\"scripted\",\"run_timeout\":\"1s\"}");
        assertThat(quick.statusCode()).as(quick.body()).isIn(200, 201);
    }

    @Test
    void aCompletedRunReadsBackWithItsOutputUsageAndTimes() {
        var stream = client.stream("assistant", null, "{\"query\":\"read me back\",\"metadata\":{\"page\":\"home\"}}");
        String runId = stream.header("x-run-id");
        String threadId = stream.header("x-thread-id");

        JsonNode run = read("/api/v1/runs/" + runId);
        assertThat(run.get("run_id").asString()).isEqualTo(runId);
        assertThat(run.get("status").asString()).isEqualTo("completed");
        assertThat(run.get("agent_id").asString()).isEqualTo("assistant");
        assertThat(run.get("thread_id").asString()).isEqualTo(threadId);
        assertThat(run.get("mode").asString()).isEqualTo("stream");
        assertThat(run.get("attempt").asInt()).isEqualTo(1);
        assertThat(run.get("output").asString()).isEqualTo("Echo #1: read me back");
        assertThat(run.get("usage").get("output_tokens").asLong()).isPositive();
        Instant created = Instant.parse(run.get("created_at").asString());
        Instant started = Instant.parse(run.get("started_at").asString());
        Instant ended = Instant.parse(run.get("ended_at").asString());
        assertThat(created).isBeforeOrEqualTo(started);
        assertThat(started).isBeforeOrEqualTo(ended);
        assertThat(run.has("error")).isFalse();

        JsonNode thread = read("/api/v1/threads/" + threadId);
        assertThat(thread.get("agent_id").asString()).isEqualTo("assistant");
        assertThat(thread.get("message_count").asLong()).isEqualTo(2);
        assertThat(thread.get("metadata").get("page").asString()).isEqualTo("home");
        assertThat(thread.has("active_run_id")).isFalse();
    }

    @Test
    void aFailedRunReadsBackWithItsError() {
        String runId = client.stream("assistant", null, ApiClient.body("/fail")).header("x-run-id");

        JsonNode run = read("/api/v1/runs/" + runId);
        assertThat(run.get("status").asString()).isEqualTo("failed");
        assertThat(run.get("error").get("code").asString()).isEqualTo("model_error");
        assertThat(run.get("error").get("message").asString()).isNotBlank();
    }

    @Test
    void aTimedOutRunReadsBackAsTimedOut() {
        String runId = client.stream("quick", null, ApiClient.body("/slow 400 a b c d e f g h")).header("x-run-id");

        JsonNode run = read("/api/v1/runs/" + runId);
        assertThat(run.get("status").asString()).isEqualTo("timed_out");
        assertThat(run.get("agent_id").asString()).isEqualTo("quick");
    }

    @Test
    void aOneOffRunHasNoThread() {
        HttpResponse<String> response = client.run("assistant", ApiClient.body("once"), Map.of("content-type", "application/json"));
        String runId = response.headers().firstValue("x-run-id").orElseThrow();

        JsonNode run = read("/api/v1/runs/" + runId);
        assertThat(run.get("status").asString()).isEqualTo("completed");
        assertThat(run.get("mode").asString()).isEqualTo("one_off");
        assertThat(run.has("thread_id")).isFalse();
        assertThat(run.get("output").asString()).isEqualTo("Echo #1: once");
    }

    @Test
    void aRunReadWhileItRunsThenCancelledShowsEachStatus() throws Exception {
        HttpResponse<InputStream> stream = client.openStream("assistant", null, ApiClient.body("/slow 300 one two three four five six seven eight"));
        String threadId = stream.headers().firstValue("x-thread-id").orElseThrow();
        String runId = stream.headers().firstValue("x-run-id").orElseThrow();
        try (InputStream in = stream.body()) {
            ApiClient.readUntil(in, e -> !"1".equals(e.id()));
            JsonNode running = read("/api/v1/runs/" + runId);
            assertThat(running.get("status").asString()).isEqualTo("running");
            assertThat(running.has("output")).isFalse();
            assertThat(running.has("ended_at")).isFalse();
            assertThat(read("/api/v1/threads/" + threadId).get("active_run_id").asString()).isEqualTo(runId);

            assertThat(client.cancel(threadId, runId).statusCode()).isEqualTo(202);
            ApiClient.readUntil(in, e -> true);
        }
        JsonNode cancelled = read("/api/v1/runs/" + runId);
        assertThat(cancelled.get("status").asString()).isEqualTo("cancelled");
        assertThat(cancelled.get("output").asString()).startsWith("Echo #1:");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(read("/api/v1/threads/" + threadId).has("active_run_id")).isFalse());
    }

    @Test
    void aHistoryOf250MessagesAndItsRunsPageThroughWholeAndInOrder() {
        String threadId = null;
        List<String> runIds = new ArrayList<>();
        for (int turn = 1; turn <= 125; turn++) {
            var stream = client.stream("assistant", threadId, ApiClient.body("turn " + turn));
            assertThat(stream.status()).isEqualTo(200);
            threadId = stream.header("x-thread-id");
            runIds.add(stream.header("x-run-id"));
        }

        List<JsonNode> pages = new ArrayList<>();
        List<String> contents = new ArrayList<>();
        String before = null;
        do {
            JsonNode page = read("/api/v1/threads/" + threadId + "/messages?limit=100" + (before == null ? "" : "&before=" + before));
            pages.add(page);
            List<String> older = new ArrayList<>();
            page.get("messages").forEach(m -> older.add(m.get("role").asString() + ":" + m.get("content").asString()));
            contents.addAll(0, older);
            before = page.has("next_before") ? page.get("next_before").asString() : null;
        } while (before != null);

        assertThat(pages).extracting(p -> p.get("messages").size()).containsExactly(100, 100, 50);
        assertThat(contents).hasSize(250);
        for (int turn = 1; turn <= 125; turn++) {
            assertThat(contents.get(2 * turn - 2)).isEqualTo("user:turn " + turn);
            assertThat(contents.get(2 * turn - 1)).isEqualTo("assistant:Echo #" + turn + ": turn " + turn);
        }
        JsonNode last = pages.getFirst().get("messages").get(99);
        assertThat(last.get("run_id").asString()).isEqualTo(runIds.getLast());

        List<String> listed = new ArrayList<>();
        before = null;
        int pageCount = 0;
        do {
            JsonNode page = read("/api/v1/threads/" + threadId + "/runs?limit=50" + (before == null ? "" : "&before=" + before));
            page.get("runs").forEach(r -> {
                listed.add(r.get("run_id").asString());
                assertThat(r.get("status").asString()).isEqualTo("completed");
            });
            before = page.has("next_before") ? page.get("next_before").asString() : null;
            pageCount++;
        } while (before != null);
        assertThat(pageCount).isEqualTo(3);
        assertThat(listed).isEqualTo(runIds.reversed());
        assertThat(read("/api/v1/threads/" + threadId).get("message_count").asLong()).isEqualTo(250);
    }

    @Test
    void anotherProjectsIdsAnswerTheSame404AsMissingOnes() {
        var stream = client.stream("assistant", null, ApiClient.body("mine"));
        String runId = stream.header("x-run-id");
        String threadId = stream.header("x-thread-id");
        ApiClient other = new ApiClient(pipeline.api(0), OTHER_PROJECT, OTHER_KEY);

        for (String path : List.of("/api/v1/runs/" + runId, "/api/v1/runs/" + Ids.newRunId(), "/api/v1/runs/not-a-run")) {
            assertProblem(other.get(path), 404, "run_not_found");
        }
        for (String suffix : List.of("", "/messages", "/runs")) {
            assertProblem(other.get("/api/v1/threads/" + threadId + suffix), 404, "thread_not_found");
            assertProblem(client.get("/api/v1/threads/" + Ids.newThreadId() + suffix), 404, "thread_not_found");
        }
        assertProblem(client.get("/api/v1/runs/" + Ids.newRunId()), 404, "run_not_found");
    }

    @Test
    void aPublishableKeyReadsOnlyWhatItsFamilyStarted() {
        String publishable = issuePublishable();
        ApiClient browser = new ApiClient(pipeline.api(0), Map.of("x-api-key", publishable, "Origin", SHOP));
        var own = browser.stream("assistant", null, ApiClient.body("from the widget"));
        assertThat(own.status()).isEqualTo(200);
        var secret = client.stream("assistant", null, ApiClient.body("from the backend"));

        assertThat(browser.get("/api/v1/runs/" + own.header("x-run-id")).statusCode()).isEqualTo(200);
        assertThat(browser.get("/api/v1/threads/" + own.header("x-thread-id") + "/messages").statusCode()).isEqualTo(200);
        assertProblem(browser.get("/api/v1/runs/" + secret.header("x-run-id")), 404, "run_not_found");
        assertProblem(browser.get("/api/v1/threads/" + secret.header("x-thread-id")), 404, "thread_not_found");
    }

    @Test
    void aDeletedThreadIsGoneAtOnceWithItsRunsAndHistory() {
        var first = client.stream("assistant", null, ApiClient.body("forget me"));
        String threadId = first.header("x-thread-id");
        String runId = first.header("x-run-id");
        var second = client.stream("assistant", threadId, ApiClient.body("and this"));

        HttpResponse<String> deleted = client.exchange("DELETE", "/api/v1/threads/" + threadId, Map.of(), null);

        assertThat(deleted.statusCode()).as(deleted.body()).isEqualTo(200);
        JsonNode body = CODEC.mapper().readTree(deleted.body());
        assertThat(body.get("deleted").asBoolean()).isTrue();
        assertThat(body.has("cancelled_run_id")).isFalse();
        for (String suffix : List.of("", "/messages", "/runs")) {
            assertProblem(client.get("/api/v1/threads/" + threadId + suffix), 404, "thread_not_found");
        }
        assertProblem(client.get("/api/v1/runs/" + runId), 404, "run_not_found");
        assertProblem(client.get("/api/v1/runs/" + second.header("x-run-id")), 404, "run_not_found");
        assertThat(client.join(threadId, runId, null).status()).isEqualTo(404);
        assertThat(client.stream("assistant", threadId, ApiClient.body("again?")).status()).isEqualTo(404);
        var redis = pipeline.redis().sync();
        assertThat(redis.exists(RedisKeys.threadMessages(threadId),
                RedisKeys.runEvents(runId))).isZero();
        assertThat(redis.hget(RedisKeys.run(runId), "output")).isNull();
        assertProblem(client.exchange("DELETE", "/api/v1/threads/" + threadId, Map.of(), null), 404, "thread_not_found");
    }

    @Test
    void deletingAThreadWithAnActiveRunCancelsItAndNothingOfItComesBack() throws Exception {
        HttpResponse<InputStream> stream = client.openStream("assistant", null, ApiClient.body("/slow 200 one two three four five six seven"));
        String threadId = stream.headers().firstValue("x-thread-id").orElseThrow();
        String runId = stream.headers().firstValue("x-run-id").orElseThrow();
        try (InputStream in = stream.body()) {
            ApiClient.readUntil(in, e -> !"1".equals(e.id()));

            HttpResponse<String> deleted = client.exchange("DELETE", "/api/v1/threads/" + threadId, Map.of(), null);
            assertThat(deleted.statusCode()).as(deleted.body()).isEqualTo(200);
            assertThat(CODEC.mapper().readTree(deleted.body()).get("cancelled_run_id").asString()).isEqualTo(runId);
        }
        var redis = pipeline.redis().sync();
        assertThat(redis.hget(RedisKeys.run(runId), "status")).isEqualTo("cancelled");
        // The worker stops within a few hundred ms and writes its last events; the relay applies them to nothing.
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(redis.exists(RedisKeys.thread(threadId), RedisKeys.threadMessages(threadId),
                    RedisKeys.runEvents(runId))).isZero();
            assertThat(redis.hget(RedisKeys.run(runId), "output")).isNull();
        });
        assertProblem(client.get("/api/v1/runs/" + runId), 404, "run_not_found");
    }

    @Test
    void anotherProjectCannotDeleteAThreadAndNothingIsDeleted() {
        var stream = client.stream("assistant", null, ApiClient.body("keep me"));
        String threadId = stream.header("x-thread-id");
        ApiClient other = new ApiClient(pipeline.api(0), OTHER_PROJECT, OTHER_KEY);

        assertProblem(other.exchange("DELETE", "/api/v1/threads/" + threadId, Map.of(), null), 404, "thread_not_found");
        assertThat(read("/api/v1/threads/" + threadId).get("message_count").asLong()).isEqualTo(2);
        assertThat(read("/api/v1/runs/" + stream.header("x-run-id")).get("output").asString()).isEqualTo("Echo #1: keep me");
    }

    @ParameterizedTest
    @ValueSource(strings = {"limit=0", "limit=101", "limit=ten", "before=bm9wZQ", "before=%21%21", "before=cjp4OnJ1bl94"})
    void aBadLimitOrCursorIs400(String query) {
        String threadId = client.stream("assistant", null, ApiClient.body("page me")).header("x-thread-id");

        assertProblem(client.get("/api/v1/threads/" + threadId + "/messages?" + query), 400, "invalid_request");
        assertProblem(client.get("/api/v1/threads/" + threadId + "/runs?" + query), 400, "invalid_request");
    }

    private static JsonNode read(String path) {
        HttpResponse<String> response = client.get(path);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type").orElse("")).startsWith("application/json");
        return CODEC.mapper().readTree(response.body());
    }

    private static void assertProblem(HttpResponse<String> response, int status, String code) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("content-type").orElse("")).startsWith("application/problem+json");
        assertThat(CODEC.mapper().readTree(response.body()).get("code").asString()).isEqualTo(code);
    }

    private static String issuePublishable() {
        String body = "{\"kind\":\"publishable\",\"label\":\"widget\",\"environment\":\"development\",\"agents\":[\"assistant\"],"
                + "\"allowed_origins\":[\"" + SHOP + "\"]}";
        HttpResponse<String> created = admin.exchange("POST", "/admin/v1/projects/" + pipeline.projectId + "/keys",
                Map.of("content-type", "application/json"), body);
        assertThat(created.statusCode()).as(created.body()).isIn(200, 201);
        return CODEC.mapper().readTree(created.body()).path("api_key").asString();
    }
}
