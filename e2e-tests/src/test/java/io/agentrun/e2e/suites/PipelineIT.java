package io.agentrun.e2e.suites;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.e2e.fixture.Transcript;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.ThreadStore;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;
import tools.jackson.databind.JsonNode;

/** The v1 API end to end: api node → Kafka → worker → Kafka → relay → Redis → the client's SSE connection. */
@ExtendWith(RealInfrastructure.class)
// Inherited: PipelineOnClustersIT shares this class's static fixture, so the two never run side by side.
@ResourceLock("PipelineIT")
class PipelineIT {

    private static final JsonCodec CODEC = new JsonCodec();
    static Pipeline pipeline;
    static ApiClient client;

    @BeforeAll
    static void start() {
        pipeline = Pipeline.start(1, 1, 1, Map.of(
                "agentrun.api.one-off-timeout", "3s",
                "agentrun.api.keepalive-interval", "250ms"));
        client = new ApiClient(pipeline.api(0), pipeline.projectId, pipeline.apiKey);
    }

    @AfterAll
    static void stop() {
        pipeline.close();
    }

    @Test
    void aStreamedRunDeliversEveryEventInOrderAndEndsAfterRunEnd() {
        var response = client.stream("assistant", null, ApiClient.body("hello streaming world"));

        assertThat(response.status()).isEqualTo(200);
        assertThat(response.header("content-type")).startsWith("text/event-stream");
        assertThat(response.header("cache-control")).isEqualTo("no-cache");
        assertThat(response.header("x-accel-buffering")).isEqualTo("no");
        String runId = response.header("x-run-id");
        String threadId = response.header("x-thread-id");
        assertThat(runId).matches("run_[a-z2-7]{26}");
        assertThat(threadId).matches("thr_[a-z2-7]{26}");

        Transcript transcript = Transcript.of(response.events()).assertWellFormed(runId, threadId);
        assertThat(transcript.types()).containsExactly(
                "run_start", "message_delta", "message_delta", "message_delta", "message_final", "run_end");
        var start = transcript.only(EventData.RunStart.class);
        assertThat(start.attempt()).isEqualTo(1);
        assertThat(start.agentId()).isEqualTo("assistant");
        assertThat(start.input().query()).isEqualTo("hello streaming world");
        assertThat(transcript.deltas()).isEqualTo("Echo #1: hello streaming world");
        assertThat(transcript.messageFinal().content()).isEqualTo("Echo #1: hello streaming world");
        assertThat(transcript.runEnd().status()).isEqualTo(RunStatus.COMPLETED);
        assertThat(transcript.runEnd().output()).isEqualTo("Echo #1: hello streaming world");
        assertThat(transcript.events()).allSatisfy(e -> {
            assertThat(e.projectId()).isEqualTo(pipeline.projectId);
            assertThat(e.agentId()).isEqualTo("assistant");
        });
    }

    @Test
    void aThreadContinuesWithItsHistory() {
        var first = client.stream("assistant", null, ApiClient.body("first question"));
        String threadId = first.header("x-thread-id");
        assertThat(Transcript.of(first.events()).runEnd().output()).isEqualTo("Echo #1: first question");

        var second = client.stream("assistant", threadId, ApiClient.body("second question"));

        assertThat(second.status()).isEqualTo(200);
        assertThat(second.header("x-thread-id")).isEqualTo(threadId);
        assertThat(second.header("x-run-id")).isNotEqualTo(first.header("x-run-id"));
        Transcript transcript = Transcript.of(second.events()).assertWellFormed(second.header("x-run-id"), threadId);
        assertThat(transcript.runEnd().output()).isEqualTo("Echo #2: second question");
        assertThat(pipeline.apiBean(ThreadStore.class).history(threadId))
                .extracting(m -> m.role() + ":" + m.content())
                .containsExactly("USER:first question", "ASSISTANT:Echo #1: first question",
                        "USER:second question", "ASSISTANT:Echo #2: second question");
    }

    @Test
    void thinkingComesBeforeTheAnswer() {
        var response = client.stream("assistant", null, ApiClient.body("/think weigh the options carefully first"));

        Transcript transcript = Transcript.of(response.events())
                .assertWellFormed(response.header("x-run-id"), response.header("x-thread-id"));
        int lastThinking = transcript.types().lastIndexOf("thinking_part");
        assertThat(lastThinking).isGreaterThan(0);
        assertThat(transcript.types().indexOf("message_delta")).isGreaterThan(lastThinking);
        String thought = transcript.events().stream().map(e -> e.data())
                .filter(d -> d instanceof EventData.ThinkingPart).map(d -> ((EventData.ThinkingPart) d).text())
                .reduce("", String::concat);
        assertThat(thought).isEqualTo("weigh the options carefully first");
    }

    @Test
    void aFailingModelEndsWithAnErrorThenRunEndFailed() {
        var response = client.stream("assistant", null, ApiClient.body("/fail"));

        Transcript transcript = Transcript.of(response.events())
                .assertWellFormed(response.header("x-run-id"), response.header("x-thread-id"));
        assertThat(transcript.types()).containsExactly("run_start", "error", "run_end");
        var error = transcript.only(EventData.RunError.class);
        assertThat(error.code()).isEqualTo("model_error");
        assertThat(error.retryable()).isFalse();
        assertThat(transcript.runEnd().status()).isEqualTo(RunStatus.FAILED);
    }

    @Test
    void aFailedTurnLeavesNoHistoryAndFreesTheThread() {
        var failed = client.stream("assistant", null, ApiClient.body("/fail"));
        String threadId = failed.header("x-thread-id");

        var next = client.stream("assistant", threadId, ApiClient.body("try again"));

        assertThat(next.status()).isEqualTo(200);
        assertThat(Transcript.of(next.events()).runEnd().output()).isEqualTo("Echo #1: try again");
    }

    @Test
    void anIdleStreamCarriesKeepaliveCommentsAndEndsRightAfterRunEnd() throws Exception {
        var response = client.openStream("assistant", null, ApiClient.body("/slow 700 a b c"));

        String raw;
        try (var body = response.body()) {
            raw = new String(body.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        assertThat(raw).contains("\n: keepalive\n\n");
        assertThat(raw.strip()).as("nothing after run_end").endsWith("}}")
                .contains("event: run_end\ndata: {\"type\":\"run_end\"");
        assertThat(raw.substring(raw.lastIndexOf("event: run_end"))).doesNotContain("keepalive");
    }

    @Test
    void aClientThatHangsUpDoesNotCancelTheRun() throws Exception {
        var response = client.openStream("assistant", null, ApiClient.body("/slow 200 keep going without me please"));
        String runId = response.headers().firstValue("x-run-id").orElseThrow();
        try (var body = response.body()) {
            body.readNBytes(10); // the first bytes of run_start, then hang up
        }

        RunStore runs = pipeline.apiBean(RunStore.class);
        // Both awaited: the worker's release records the status (no claim runs a finished run again), the relay's apply
        // of run_end the output, and either may come first.
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(runs.find(runId)).hasValueSatisfying(state -> {
            assertThat(state.status()).isEqualTo(RunStatus.COMPLETED);
            assertThat(state.output()).isEqualTo("Echo #1: /slow 200 keep going without me please");
        }));
    }

    @Test
    void aSecondTurnWhileTheFirstStillRunsIsThreadBusy() throws Exception {
        var first = client.openStream("assistant", null, ApiClient.body("/slow 300 still talking here"));
        String threadId = first.headers().firstValue("x-thread-id").orElseThrow();
        try (var body = first.body()) {
            var busy = client.stream("assistant", threadId, ApiClient.body("me too"));

            assertThat(busy.status()).isEqualTo(409);
            assertThat(CODEC.mapper().readTree(busy.body()).get("code").asString()).isEqualTo("thread_busy");
            var transcript = Transcript.of(ApiClient.parse(body));
            assertThat(transcript.runEnd().output()).isEqualTo("Echo #1: /slow 300 still talking here");
        }
        assertThat(client.stream("assistant", threadId, ApiClient.body("now me")).status()).isEqualTo(200);
    }

    @Test
    void aOneOffRunAnswersWithPlainText() {
        var response = client.run("assistant", ApiClient.body("just once"), Map.of("content-type", "application/json"));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/plain"));
        assertThat(response.body()).isEqualTo("Echo #1: just once");
        assertThat(response.headers().firstValue("x-run-id")).hasValueSatisfying(v -> assertThat(v).startsWith("run_"));
    }

    @Test
    void aOneOffRunAnswersWithJsonWhenAsked() {
        var response = client.run("assistant", ApiClient.body("as json"),
                Map.of("content-type", "application/json", "accept", "application/json"));

        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode body = CODEC.mapper().readTree(response.body());
        assertThat(body.get("output").asString()).isEqualTo("Echo #1: as json");
        assertThat(body.get("status").asString()).isEqualTo("completed");
        assertThat(body.get("run_id").asString()).isEqualTo(response.headers().firstValue("x-run-id").orElseThrow());
        assertThat(body.get("usage").get("output_tokens").asLong()).isEqualTo(4);
        assertThat(body.has("duration_ms")).isTrue();
    }

    @Test
    void aFailedOneOffRunIs502RunFailed() {
        var response = client.run("assistant", ApiClient.body("/fail"), Map.of("content-type", "application/json"));

        assertThat(response.statusCode()).isEqualTo(502);
        assertThat(response.headers().firstValue("content-type")).contains("application/problem+json");
        JsonNode problem = CODEC.mapper().readTree(response.body());
        assertThat(problem.get("code").asString()).isEqualTo("run_failed");
        assertThat(problem.get("detail").asString()).contains("model_error");
    }

    @Test
    void aOneOffRunPastTheWaitIs504AndTheRunIsCancelled() {
        var response = client.run("assistant", ApiClient.body("/slow 1000 one two three four five six"),
                Map.of("content-type", "application/json"));

        assertThat(response.statusCode()).isEqualTo(504);
        JsonNode problem = CODEC.mapper().readTree(response.body());
        assertThat(problem.get("code").asString()).isEqualTo("run_timeout");
        String runId = problem.get("detail").asString().replaceAll(".*(run_[a-z2-7]{26}).*", "$1");
        RunStore runs = pipeline.apiBean(RunStore.class);
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() ->
                assertThat(runs.find(runId)).hasValueSatisfying(state -> assertThat(state.status()).isEqualTo(RunStatus.CANCELLED)));
    }
}
