package io.agentrun.e2e.suites;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.e2e.fixture.Transcript;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.store.RunStore;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

/**
 * Background runs, {@code POST /api/v1/agents/{agent_id}/runs}: answered 202 with where to follow the run, then
 * run to their end with nobody listening — past the one-off timeout (2 s here), which does not apply to them.
 */
@ExtendWith(RealInfrastructure.class)
class BackgroundRunIT {

    private static final JsonCodec CODEC = new JsonCodec();
    private static final Duration ENDS_WITHIN = Duration.ofSeconds(60);

    static Pipeline pipeline;
    static ApiClient client;

    @BeforeAll
    static void start() {
        pipeline = Pipeline.start(1, 2, 1, Map.of("agentrun.api.one-off-timeout", "2s"));
        client = new ApiClient(pipeline.api(0), pipeline.projectId, pipeline.apiKey);
    }

    @AfterAll
    static void stop() {
        pipeline.close();
    }

    @Test
    void aBackgroundRunIsAcceptedAtOnceAndEndsWithNobodyListening() {
        HttpResponse<String> response = client.background("assistant", null, ApiClient.body("in the background"), Map.of());

        assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
        JsonNode accepted = CODEC.read(response.body(), JsonNode.class);
        String runId = accepted.get("run_id").asString();
        String threadId = accepted.get("thread_id").asString();
        // The answer carries the status read as it is sent: a quick run may have ended by then.
        assertThat(accepted.get("status").asString()).isIn("queued", "running", "completed");
        assertThat(response.headers().firstValue("location")).hasValue("/api/v1/runs/" + runId);
        assertThat(response.headers().firstValue("x-run-id")).hasValue(runId);
        assertThat(response.headers().firstValue("x-thread-id")).hasValue(threadId);
        assertThat(accepted.get("links").get("stream").asString()).isEqualTo("/api/v1/threads/" + threadId + "/runs/" + runId + "/stream");

        JsonNode ended = awaitEnd(runId);
        assertThat(ended.get("status").asString()).isEqualTo("completed");
        assertThat(ended.get("mode").asString()).isEqualTo("background");
        assertThat(ended.get("output").asString()).isEqualTo("Echo #1: in the background");
        var replay = client.join(threadId, runId, null);
        Transcript.of(replay.events()).assertWellFormed(runId, threadId);
        assertThat(CODEC.read(client.get("/api/v1/threads/" + threadId + "/messages").body(), JsonNode.class)
                .get("messages").size()).isEqualTo(2);
    }

    @Test
    void aRunLongerThanTheOneOffTimeoutEndsInTheBackground() {
        String slow = "/slow 300 alpha bravo charlie delta echo foxtrot golf hotel india juliet";
        assertThat(client.run("assistant", ApiClient.body(slow), Map.of("content-type", "application/json")).statusCode())
                .as("the same run, waited for as a one-off").isEqualTo(504);

        String runId = runIdOf(client.background("assistant", null, ApiClient.body(slow), Map.of()));

        JsonNode ended = awaitEnd(runId);
        assertThat(ended.get("status").asString()).isEqualTo("completed");
        assertThat(ended.get("output").asString()).startsWith("Echo #1: /slow 300 alpha");
    }

    @Test
    void aBackgroundRunContinuesAThreadAndABusyThreadRefusesTheNext() {
        HttpResponse<String> first = client.background("assistant", null, ApiClient.body("/slow 200 one two three four five"), Map.of());
        String threadId = CODEC.read(first.body(), JsonNode.class).get("thread_id").asString();

        HttpResponse<String> busy = client.background("assistant", threadId, ApiClient.body("too soon"), Map.of());
        assertThat(busy.statusCode()).isEqualTo(409);
        assertThat(CODEC.read(busy.body(), JsonNode.class).get("code").asString()).isEqualTo("thread_busy");
        assertThat(client.stream("assistant", threadId, ApiClient.body("too soon")).status()).isEqualTo(409);

        awaitEnd(runIdOf(first));
        String second = runIdOf(client.background("assistant", threadId, ApiClient.body("and then"), Map.of()));
        assertThat(awaitEnd(second).get("output").asString()).isEqualTo("Echo #2: and then");
    }

    @Test
    void theSameIdempotencyKeyAnswersTheSameRunAndAnotherBodyIsRefused() {
        String key = "bg-" + UUID.randomUUID();
        HttpResponse<String> first = client.background("assistant", null, ApiClient.body("once"), Map.of("Idempotency-Key", key));
        String runId = runIdOf(first);
        awaitEnd(runId);

        HttpResponse<String> again = client.background("assistant", null, ApiClient.body("once"), Map.of("Idempotency-Key", key));
        assertThat(again.statusCode()).isEqualTo(202);
        assertThat(CODEC.read(again.body(), JsonNode.class).get("run_id").asString()).isEqualTo(runId);
        assertThat(CODEC.read(again.body(), JsonNode.class).get("status").asString()).as("the run as it is now").isEqualTo("completed");
        assertThat(client.background("assistant", null, ApiClient.body("other"), Map.of("Idempotency-Key", key)).statusCode()).isEqualTo(422);
    }

    @Test
    void badRequestsAreRefusedBeforeAnythingIsQueued() {
        long before = queuedRuns();
        assertThat(problemCode(client.background("assistant", null, "{\"query\":", Map.of()))).isEqualTo("invalid_request");
        assertThat(problemCode(client.background("assistant", null, "{}", Map.of()))).isEqualTo("invalid_request");
        assertThat(problemCode(client.background("nobody", null, ApiClient.body("x"), Map.of()))).isEqualTo("agent_not_found");
        assertThat(problemCode(client.background("assistant", "thr_nothere", ApiClient.body("x"), Map.of()))).isEqualTo("thread_not_found");
        assertThat(queuedRuns()).isEqualTo(before);
    }

    @Test
    void twoHundredBackgroundRunsAllEnd() throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(20);
        List<String> runIds;
        try {
            List<Future<String>> started = IntStream.range(0, 200).mapToObj(i -> callers.submit(() ->
                    runIdOf(client.background("assistant", null, ApiClient.body("many " + i), Map.of())))).toList();
            runIds = new java.util.ArrayList<>();
            for (Future<String> run : started) {
                runIds.add(run.get());
            }
        } finally {
            callers.shutdownNow();
        }
        RunStore runs = pipeline.apiBean(RunStore.class);
        // Ended: the worker let go (terminal status) and the relay applied its run_end, which brings the output; the
        // worker's mark comes a moment first (under load, before any of the run's events were applied).
        await("200 background runs to end").atMost(ENDS_WITHIN).pollInterval(Duration.ofMillis(200))
                .until(() -> runIds.stream().allMatch(id -> runs.find(id).map(r -> r.status().isTerminal() && r.endSeq() >= 0).orElse(false)));
        for (int i = 0; i < runIds.size(); i++) {
            var run = runs.find(runIds.get(i)).orElseThrow();
            assertThat(run.status()).isEqualTo(RunStatus.COMPLETED);
            assertThat(run.output()).isEqualTo("Echo #1: many " + i);
        }
    }

    private static String runIdOf(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
        return CODEC.read(response.body(), JsonNode.class).get("run_id").asString();
    }

    private static JsonNode awaitEnd(String runId) {
        return await("run " + runId + " to end").atMost(ENDS_WITHIN).pollInterval(Duration.ofMillis(100))
                .until(() -> CODEC.read(client.get("/api/v1/runs/" + runId).body(), JsonNode.class),
                        run -> RunStatus.valueOf(run.get("status").asString().toUpperCase()).isTerminal());
    }

    private static String problemCode(HttpResponse<String> response) {
        assertThat(response.statusCode()).isBetween(400, 499);
        assertThat(response.headers().firstValue("content-type").orElse("")).startsWith("application/problem+json");
        return CODEC.read(response.body(), JsonNode.class).get("code").asString();
    }

    /** Commands written to this pipeline's commands topic so far (the sum of its partitions' end offsets). */
    private static long queuedRuns() {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", RealInfrastructure.kafkaBootstrapServers()))) {
            String topic = pipeline.commandsTopic();
            int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
            Map<TopicPartition, OffsetSpec> latest = IntStream.range(0, partitions).boxed()
                    .collect(Collectors.toMap(p -> new TopicPartition(topic, p), p -> OffsetSpec.latest()));
            return admin.listOffsets(latest).all().get().values().stream().mapToLong(ListOffsetsResultInfo::offset).sum();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
