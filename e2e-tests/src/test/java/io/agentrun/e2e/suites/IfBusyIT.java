package io.agentrun.e2e.suites;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.e2e.fixture.SseEvent;
import io.agentrun.e2e.fixture.SuiteLanes;
import io.agentrun.e2e.fixture.Transcript;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.command.RunCommand;
import io.agentrun.model.command.RunInput;
import io.agentrun.model.command.RunMode;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.id.Ids;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.model.thread.ChatMessage;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.ThreadStore;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

/**
 * {@code ?if_busy=} on a thread whose run is still going: {@code reject} (409, the default), {@code enqueue} (the new
 * run's stream shows {@code run_waiting}, then the run from seq 0 once the active one ended) and {@code interrupt}
 * (the active run is cancelled with its partial answer kept, then the new one runs) — with the exact event sequences
 * and the thread's history after each. Also the durable path: a waiting run whose hand-over never came (the lock
 * expired under the active run) is started by a worker's sweeper.
 */
@ExtendWith(RealInfrastructure.class)
@Order(SuiteLanes.LONG_PIPELINE_SUITES)
class IfBusyIT {

    private static final JsonCodec CODEC = new JsonCodec();
    private static final String SLOW = "/slow 600 alpha bravo charlie delta echo foxtrot golf hotel";

    static Pipeline pipeline;
    static ApiClient client;

    @BeforeAll
    static void start() {
        // A short claim timeout: a waiting run the relay did not start is looked at by a sweeper after it.
        pipeline = Pipeline.start(1, 2, 1, Map.of("agentrun.state.claim-timeout", "2s"));
        client = new ApiClient(pipeline.api(0), pipeline.projectId, pipeline.apiKey);
    }

    @AfterAll
    static void stop() {
        pipeline.close();
    }

    @Test
    void rejectIsTheDefaultAndLeavesTheActiveRunAlone() {
        Active active = startSlow();

        var refused = client.stream("assistant", active.threadId, ApiClient.body("not now"));
        var refusedExplicitly = ApiClient.readWhole(client.openStream("assistant", active.threadId, "reject", ApiClient.body("not now")));

        assertThat(refused.status()).isEqualTo(409);
        assertThat(refused.body()).contains("\"code\":\"thread_busy\"", "if_busy=enqueue");
        assertThat(refusedExplicitly.status()).isEqualTo(409);
        Transcript first = active.end();
        assertThat(first.runEnd().status()).isEqualTo(RunStatus.COMPLETED);
        assertThat(history(active.threadId)).extracting(ChatMessage::content).containsExactly(SLOW, "Echo #1: " + SLOW);
    }

    @Test
    void enqueueWaitsForTheActiveRunThenRunsAfterIt() {
        Active active = startSlow();

        var waited = ApiClient.readWhole(client.openStream("assistant", active.threadId, "enqueue", ApiClient.body("next, please")));

        Transcript first = active.end();
        assertIsAnAnswer(first);
        assertThat(first.runEnd().status()).isEqualTo(RunStatus.COMPLETED);
        assertThat(waited.status()).isEqualTo(200);
        SseEvent waiting = waited.events().getFirst();
        assertThat(waiting.event()).isEqualTo("run_waiting");
        assertThat(waiting.id()).as("unnumbered").isNull();
        JsonNode behind = CODEC.read(waiting.data(), JsonNode.class).get("data");
        assertThat(behind.get("behind_run_id").asString()).isEqualTo(active.runId);
        assertThat(behind.get("place").asInt()).isEqualTo(1);
        Transcript second = Transcript.of(waited.events().subList(1, waited.events().size()))
                .assertWellFormed(waited.header("x-run-id"), active.threadId);
        assertIsAnAnswer(second);
        assertThat(second.runEnd().output()).isEqualTo("Echo #2: next, please");
        assertThat(second.events().getFirst().createdAt()).as("started after the active run ended")
                .isAfterOrEqualTo(first.events().getLast().createdAt());
        assertThat(history(active.threadId)).extracting(ChatMessage::content)
                .containsExactly(SLOW, "Echo #1: " + SLOW, "next, please", "Echo #2: next, please");
    }

    @Test
    void interruptCancelsTheActiveRunKeepsItsPartialAnswerAndRunsNext() {
        Active active = startSlow();
        active.awaitDeltas(2);

        var next = ApiClient.readWhole(client.openStream("assistant", active.threadId, "interrupt", ApiClient.body("stop, do this")));

        Transcript first = active.end();
        assertThat(first.runEnd().status()).isEqualTo(RunStatus.CANCELLED);
        assertThat(first.messageFinal().wasCancelled()).isTrue();
        String partial = first.messageFinal().content();
        assertThat(partial).isNotEmpty().isNotEqualTo("Echo #1: " + SLOW);
        assertThat(next.events().getFirst().event()).isEqualTo("run_waiting");
        Transcript second = Transcript.of(next.events().subList(1, next.events().size()))
                .assertWellFormed(next.header("x-run-id"), active.threadId);
        assertThat(second.runEnd().status()).isEqualTo(RunStatus.COMPLETED);
        assertThat(second.runEnd().output()).isEqualTo("Echo #2: stop, do this");
        List<ChatMessage> history = history(active.threadId);
        assertThat(history).extracting(ChatMessage::content).containsExactly(SLOW, partial, "stop, do this", "Echo #2: stop, do this");
        assertThat(history.get(1).status()).isEqualTo("cancelled");
    }

    @Test
    void runsEnqueuedOneAfterAnotherRunInTheirOrder() throws Exception {
        Active active = startSlow();
        HttpResponse<InputStream> second = client.openStream("assistant", active.threadId, "enqueue", ApiClient.body("second"));
        HttpResponse<InputStream> third = client.openStream("assistant", active.threadId, "enqueue", ApiClient.body("third"));
        CompletableFuture<ApiClient.StreamResponse> secondRead = CompletableFuture.supplyAsync(() -> ApiClient.readWhole(second));
        CompletableFuture<ApiClient.StreamResponse> thirdRead = CompletableFuture.supplyAsync(() -> ApiClient.readWhole(third));

        active.end();
        ApiClient.StreamResponse secondRun = secondRead.get();
        ApiClient.StreamResponse thirdRun = thirdRead.get();

        assertThat(placeOf(secondRun)).isEqualTo(1);
        assertThat(placeOf(thirdRun)).isEqualTo(2);
        assertThat(Transcript.of(secondRun.events().subList(1, secondRun.events().size())).runEnd().output()).isEqualTo("Echo #2: second");
        assertThat(Transcript.of(thirdRun.events().subList(1, thirdRun.events().size())).runEnd().output()).isEqualTo("Echo #3: third");
        assertThat(history(active.threadId)).extracting(ChatMessage::content)
                .containsExactly(SLOW, "Echo #1: " + SLOW, "second", "Echo #2: second", "third", "Echo #3: third");
    }

    @Test
    void aBackgroundRunEnqueuedBehindAnotherStartsWhenItEnds() {
        HttpResponse<String> first = client.background("assistant", null, ApiClient.body(SLOW), Map.of());
        JsonNode accepted = CODEC.read(first.body(), JsonNode.class);
        String threadId = accepted.get("thread_id").asString();

        HttpResponse<String> queued = client.exchange("POST", "/api/v1/agents/assistant/runs?thread_id=" + threadId + "&if_busy=enqueue",
                Map.of("content-type", "application/json"), ApiClient.body("after you"));

        assertThat(queued.statusCode()).as(queued.body()).isEqualTo(202);
        String secondId = CODEC.read(queued.body(), JsonNode.class).get("run_id").asString();
        RunStore runs = pipeline.apiBean(RunStore.class);
        // Ended as the relay applied its run_end (end_seq, output): the worker's release marks it ended a moment earlier.
        await().atMost(Duration.ofSeconds(60)).until(() -> runs.find(secondId).map(r -> r.status().isTerminal() && r.endSeq() >= 0).orElse(false));
        var firstRun = runs.find(accepted.get("run_id").asString()).orElseThrow();
        var secondRun = runs.find(secondId).orElseThrow();
        assertThat(secondRun.output()).isEqualTo("Echo #2: after you");
        assertThat(secondRun.startedAt()).isAfterOrEqualTo(firstRun.endedAt());
    }

    @Test
    void enqueueOnAFreeThreadStartsAtOnceAndAnUnknownPolicyIsRefused() {
        String threadId = client.stream("assistant", null, ApiClient.body("hello")).header("x-thread-id");

        var now = ApiClient.readWhole(client.openStream("assistant", threadId, "enqueue", ApiClient.body("again")));
        var unknown = ApiClient.readWhole(client.openStream("assistant", threadId, "later", ApiClient.body("again")));

        assertThat(Transcript.of(now.events()).assertWellFormed(now.header("x-run-id"), threadId).runEnd().output()).isEqualTo("Echo #2: again");
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.body()).contains("\"code\":\"invalid_request\"", "if_busy");
    }

    @Test
    void aWaitingRunCancelledBeforeItsTurnEndsCancelledWhenItGetsTheThreadAndTheNextGoesOn() {
        Active active = startSlow();
        HttpResponse<InputStream> cancelled = client.openStream("assistant", active.threadId, "enqueue", ApiClient.body("never mind"));
        HttpResponse<InputStream> after = client.openStream("assistant", active.threadId, "enqueue", ApiClient.body("but this"));
        String cancelledId = cancelled.headers().firstValue("x-run-id").orElseThrow();
        CompletableFuture<ApiClient.StreamResponse> cancelledRead = CompletableFuture.supplyAsync(() -> ApiClient.readWhole(cancelled));
        CompletableFuture<ApiClient.StreamResponse> afterRead = CompletableFuture.supplyAsync(() -> ApiClient.readWhole(after));

        assertThat(client.cancel(active.threadId, cancelledId).statusCode()).isEqualTo(202);
        active.end();

        ApiClient.StreamResponse cancelledRun = cancelledRead.join();
        Transcript ended = Transcript.of(cancelledRun.events().subList(1, cancelledRun.events().size()))
                .assertWellFormed(cancelledId, active.threadId);
        assertThat(ended.runEnd().status()).isEqualTo(RunStatus.CANCELLED);
        ApiClient.StreamResponse afterRun = afterRead.join();
        assertThat(Transcript.of(afterRun.events().subList(1, afterRun.events().size())).runEnd().output()).isEqualTo("Echo #2: but this");
        assertThat(history(active.threadId)).as("a run cancelled before it said anything leaves no question behind")
                .extracting(ChatMessage::content).containsExactly(SLOW, "Echo #1: " + SLOW, "but this", "Echo #2: but this");
    }

    @Test
    void aWaitingRunWhoseHandOverNeverCameIsStartedByASweeper() {
        Active active = startSlow();
        HttpResponse<InputStream> waiting = client.openStream("assistant", active.threadId, "enqueue", ApiClient.body("still here"));
        CompletableFuture<ApiClient.StreamResponse> read = CompletableFuture.supplyAsync(() -> ApiClient.readWhole(waiting));
        // The thread's lock is no longer the active run's (as after an expiry and another holder): its run_end frees
        // nothing and hands nothing on. Held meanwhile, so no sweeper hands the thread on while the active run still runs.
        pipeline.redis().sync().set(RedisKeys.threadLock(active.threadId), "run_other_holder");
        active.end();
        // That holder's lock expires too, with nobody to hand the thread on: only a sweeper starts the waiting run.
        pipeline.redis().sync().del(RedisKeys.threadLock(active.threadId));
        ApiClient.StreamResponse run = read.join();

        Transcript transcript = Transcript.of(run.events().subList(1, run.events().size()));
        assertThat(transcript.runEnd().output()).isEqualTo("Echo #2: still here");
        assertThat(pipeline.apiBean(ThreadStore.class).lockHolder(active.threadId)).isEmpty();
    }

    @Test
    void aTurnWhoseApiNodeDiedBeforeQueueingItEndsNotQueuedAndTheThreadAnswersAgainWithinSeconds() {
        String threadId = client.stream("assistant", null, ApiClient.body("hello")).header("x-thread-id");
        // What an api node leaves that died between taking the thread for a turn and producing the turn's command: the
        // thread locked for the run, the run recorded queued and unconfirmed, and the node's lease gone with it.
        RunCommand orphan = new RunCommand(Ids.newRunId(), threadId, pipeline.projectId, "assistant", RunMode.STREAM,
                RunInput.ofQuery("lost turn"), Map.of(), Instant.now());
        assertThat(pipeline.apiBean(ThreadStore.class).tryLock(threadId, orphan.runId())).isTrue();
        pipeline.apiBean(RunStore.class).createQueued(orphan, null, false, "api-gone", "api-gone");
        assertThat(client.stream("assistant", threadId, ApiClient.body("too soon")).status()).as("the orphan holds the thread")
                .isEqualTo(409);

        // Ended by the sweeper's events, as the relay applied them (the worker's release says failed a moment earlier).
        await().atMost(Duration.ofSeconds(30)).until(() -> pipeline.apiBean(RunStore.class).find(orphan.runId())
                .filter(run -> run.status() == RunStatus.FAILED && run.endedAt() != null && run.errorCode() != null).isPresent());
        var ended = pipeline.apiBean(RunStore.class).find(orphan.runId()).orElseThrow();
        assertThat(ended.errorCode()).isEqualTo("not_queued");
        assertThat(Duration.between(orphan.createdAt(), ended.endedAt())).as("seconds, not the 15-minute start timeout")
                .isLessThan(Duration.ofSeconds(20));
        await().atMost(Duration.ofSeconds(10)).until(() -> pipeline.apiBean(ThreadStore.class).lockHolder(threadId).isEmpty());

        var next = client.stream("assistant", threadId, ApiClient.body("and now"));
        assertThat(next.status()).isEqualTo(200);
        assertThat(Transcript.of(next.events()).runEnd().status()).isEqualTo(RunStatus.COMPLETED);
        assertThat(history(threadId)).extracting(ChatMessage::content).last().asString().endsWith(": and now");
    }

    // ---- helpers

    /** A slow run on a new thread, streaming; its events are read on as they come. */
    private record Active(String runId, String threadId, CompletableFuture<ApiClient.StreamResponse> rest, HttpResponse<InputStream> response) {

        Transcript end() {
            return Transcript.of(rest.join().events()).assertWellFormed(runId, threadId);
        }

        void awaitDeltas(int deltas) {
            RunStore runs = pipeline.apiBean(RunStore.class);
            await().atMost(Duration.ofSeconds(30)).until(() -> runs.find(runId).map(r -> r.lastSeq() >= deltas).orElse(false));
        }
    }

    private static Active startSlow() {
        HttpResponse<InputStream> response = client.openStream("assistant", null, ApiClient.body(SLOW));
        assertThat(response.statusCode()).isEqualTo(200);
        String runId = response.headers().firstValue("x-run-id").orElseThrow();
        String threadId = response.headers().firstValue("x-thread-id").orElseThrow();
        return new Active(runId, threadId, CompletableFuture.supplyAsync(() -> ApiClient.readWhole(response)), response);
    }

    /** run_start, one message_delta or more, message_final, run_end: an answer, from its first event. */
    private static void assertIsAnAnswer(Transcript transcript) {
        List<String> types = transcript.types();
        assertThat(types.getFirst()).isEqualTo("run_start");
        assertThat(types.subList(1, types.size() - 2)).isNotEmpty().containsOnly("message_delta");
        assertThat(types.subList(types.size() - 2, types.size())).containsExactly("message_final", "run_end");
    }

    private static int placeOf(ApiClient.StreamResponse response) {
        assertThat(response.events().getFirst().event()).isEqualTo("run_waiting");
        return CODEC.read(response.events().getFirst().data(), JsonNode.class).get("data").get("place").asInt();
    }

    private static List<ChatMessage> history(String threadId) {
        return pipeline.apiBean(ThreadStore.class).history(threadId);
    }

}
