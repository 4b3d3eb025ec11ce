package io.agentrun.e2e.suites;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.client.SseMessage;
import io.agentrun.client.SseParser;
import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.e2e.fixture.SseEvent;
import io.agentrun.e2e.fixture.Transcript;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.id.Ids;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.ThreadStore;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;
import tools.jackson.databind.JsonNode;

/** Joining, resuming, cancelling, slow clients and draining, against the whole pipeline in one JVM. */
@ExtendWith(RealInfrastructure.class)
// Inherited: ResilienceOnClustersIT shares this class's static fixture, so the two never run side by side.
@ResourceLock("ResilienceIT")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ResilienceIT {

    private static final JsonCodec CODEC = new JsonCodec();
    static Pipeline pipeline;
    static ApiClient node0;
    static ApiClient node1;

    @BeforeAll
    static void start() {
        pipeline = Pipeline.start(2, 1, 1, Map.of("agentrun.api.max-queued-events", 50));
        node0 = new ApiClient(pipeline.api(0), pipeline.projectId, pipeline.apiKey);
        node1 = new ApiClient(pipeline.api(1), pipeline.projectId, pipeline.apiKey);
    }

    @AfterAll
    static void stop() {
        pipeline.close();
    }

    @Test
    void joiningAFinishedRunReplaysItAndCloses() {
        var original = node0.stream("assistant", null, ApiClient.body("replay me please"));
        String thread = original.header("x-thread-id");
        String run = original.header("x-run-id");

        var replay = node1.join(thread, run, null);

        assertThat(replay.status()).isEqualTo(200);
        assertThat(replay.events()).isEqualTo(original.events());
    }

    @Test
    void rejoiningAfterRunEndGets204InsteadOfAStreamThatNeverEnds() {
        var original = node0.stream("assistant", null, ApiClient.body("all done"));
        String lastId = original.events().getLast().id();

        var again = node1.join(original.header("x-thread-id"), original.header("x-run-id"), lastId);

        assertThat(again.status()).isEqualTo(204);
        assertThat(again.events()).isEmpty();
    }

    @Test
    void joiningWithLastEventIdContinuesWithTheNextEventWhileTheFirstWatcherGoesOn() throws Exception {
        HttpResponse<InputStream> first = node0.openStream("assistant", null, ApiClient.body("/slow 150 a b c d e f g h i j k l"));
        String thread = first.headers().firstValue("x-thread-id").orElseThrow();
        String run = first.headers().firstValue("x-run-id").orElseThrow();
        List<SseEvent> seenFirst = new ArrayList<>();
        try (InputStream in = first.body()) {
            seenFirst.addAll(ApiClient.readUntil(in, e -> !"3".equals(e.id())));

            var joined = node1.join(thread, run, "3");

            seenFirst.addAll(ApiClient.readUntil(in, e -> true));
            assertThat(joined.events()).extracting(SseEvent::id).first().isEqualTo("4");
            List<SseEvent> combined = new ArrayList<>(seenFirst.subList(0, 4));
            combined.addAll(joined.events());
            Transcript.of(combined).assertWellFormed(run, thread);
            assertThat(combined).isEqualTo(seenFirst);
        }
    }

    @Test
    void whenTheResumeBufferIsGoneTheBacklogComesFromKafka() {
        var original = node0.stream("assistant", null, ApiClient.body("kept in kafka"));
        String run = original.header("x-run-id");
        pipeline.redis().sync().del(RedisKeys.runEvents(run));

        var replay = node1.join(original.header("x-thread-id"), run, "1");

        assertThat(replay.events()).isEqualTo(original.events().subList(2, original.events().size()));
    }

    @Test
    void cancelStopsTheRunKeepsWhatWasSaidAndIsHarmlessTwice() throws Exception {
        HttpResponse<InputStream> stream = node0.openStream("assistant", null,
                ApiClient.body("/slow 300 one two three four five six seven eight nine ten eleven twelve"));
        String thread = stream.headers().firstValue("x-thread-id").orElseThrow();
        String run = stream.headers().firstValue("x-run-id").orElseThrow();
        try (InputStream in = stream.body()) {
            List<SseEvent> events = new ArrayList<>(ApiClient.readUntil(in, e -> !"2".equals(e.id())));

            var accepted = node1.cancel(thread, run);
            var again = node1.cancel(thread, run);

            assertThat(accepted.statusCode()).isEqualTo(202);
            assertThat(CODEC.mapper().readTree(accepted.body()).get("status").asString()).isEqualTo("cancelling");
            assertThat(again.statusCode()).isIn(200, 202);
            events.addAll(ApiClient.readUntil(in, e -> true));
            Transcript transcript = Transcript.of(events).assertWellFormed(run, thread);
            EventData.MessageFinal partial = transcript.messageFinal();
            assertThat(partial.wasCancelled()).isTrue();
            assertThat(partial.content()).isEqualTo(transcript.deltas()).startsWith("Echo #1: /slow")
                    .isNotEqualTo("Echo #1: /slow 300 one two three four five six seven eight nine ten eleven twelve");
            assertThat(transcript.runEnd().status()).isEqualTo(RunStatus.CANCELLED);
            assertThat(transcript.runEnd().output()).isEqualTo(partial.content());
        }
        assertThat(pipeline.apiBean(ThreadStore.class).history(thread)).extracting(m -> m.role() + ":" + m.status())
                .containsExactly("USER:null", "ASSISTANT:cancelled");
        var afterEnd = node0.cancel(thread, run);
        assertThat(afterEnd.statusCode()).isEqualTo(200);
        JsonNode state = CODEC.mapper().readTree(afterEnd.body());
        assertThat(state.get("status").asString()).isEqualTo("cancelled");
        assertThat(state.get("output").asString()).startsWith("Echo #1: /slow");
    }

    @Test
    void onDisconnectCancelCancelsWhenTheClientLeaves() throws Exception {
        HttpResponse<InputStream> stream = node0.openStreamWith("assistant", ApiClient.body("/slow 300 a b c d e f g h i j"), "on_disconnect=cancel");
        String run = stream.headers().firstValue("x-run-id").orElseThrow();
        try (InputStream in = stream.body()) {
            ApiClient.readUntil(in, e -> !"1".equals(e.id()));
        }

        RunStore runs = pipeline.apiBean(RunStore.class);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                assertThat(runs.find(run).orElseThrow().status()).isEqualTo(RunStatus.CANCELLED));
    }

    @Test
    void aClientTooSlowForItsQueueIsToldToResumeAndThenGetsEverything() throws Exception {
        String words = String.join(" ", java.util.Collections.nCopies(40_000, "w"));
        HttpResponse<InputStream> stream = node0.openStream("assistant", null, ApiClient.body(words));
        String thread = stream.headers().firstValue("x-thread-id").orElseThrow();
        String run = stream.headers().firstValue("x-run-id").orElseThrow();
        RunStore runs = pipeline.apiBean(RunStore.class);
        // Read nothing until the run is over: its events pile up against this connection (enough to fill the loopback
        // socket's buffers and then the 50-event queue). A liveness deadline: on the clusters, beside the other lane on a
        // slow two-core machine, the run's ~20,000 events took over a minute (CI at f36b4a7).
        await().atMost(Duration.ofMinutes(3)).until(() -> runs.find(run).map(s -> s.endSeq() >= 0).orElse(false));

        List<SseEvent> first;
        try (InputStream in = stream.body()) {
            first = ApiClient.parse(in);
        }
        SseEvent last = first.getLast();
        assertThat(last.event()).isEqualTo("error");
        assertThat(last.id()).as("a stream-level event has no id").isNull();
        assertThat(CODEC.mapper().readTree(last.data()).path("data").path("code").asString()).isEqualTo("slow_consumer");
        List<SseEvent> numbered = new ArrayList<>(first.subList(0, first.size() - 1));
        var rest = node1.join(thread, run, numbered.getLast().id());
        numbered.addAll(rest.events());
        Transcript transcript = Transcript.of(numbered).assertWellFormed(run, thread);
        assertThat(transcript.deltas()).isEqualTo("Echo #1: " + words);
    }

    @Test
    void joinAndCancelRefuseWhatIsNotTheCallers() {
        var done = node0.stream("assistant", null, ApiClient.body("mine"));
        String thread = done.header("x-thread-id");
        var other = node0.stream("assistant", null, ApiClient.body("other thread"));

        assertThat(code(node0.join(thread, Ids.newRunId(), null).body())).isEqualTo("run_not_found");
        assertThat(code(node0.join(thread, other.header("x-run-id"), null).body())).isEqualTo("run_not_found");
        assertThat(code(node0.join(Ids.newThreadId(), done.header("x-run-id"), null).body())).isEqualTo("thread_not_found");
        assertThat(code(node0.join(thread, done.header("x-run-id"), "seven").body())).isEqualTo("invalid_request");
        assertThat(node0.cancel(thread, Ids.newRunId()).statusCode()).isEqualTo(404);
    }

    @Test
    @Order(Integer.MAX_VALUE)
    void aDrainingNodeTellsItsStreamsToReconnectAndTheyLoseNothing() throws Exception {
        Followed followed = Followed.start(); // an operator follows another, longer run's records on the same node
        HttpResponse<InputStream> stream = node1.openStream("assistant", null, ApiClient.body("/slow 200 draining node keeps nothing back at all"));
        String thread = stream.headers().firstValue("x-thread-id").orElseThrow();
        String run = stream.headers().firstValue("x-run-id").orElseThrow();
        List<SseEvent> events;
        long closing;
        try (InputStream in = stream.body()) {
            events = new ArrayList<>(ApiClient.readUntil(in, e -> !"1".equals(e.id())));
            closing = System.nanoTime();
            Thread.ofVirtual().start(() -> pipeline.closeApi(1));
            events.addAll(ApiClient.readUntil(in, e -> true));
        }
        followed.readToItsEnd();
        assertThat(Duration.ofNanos(System.nanoTime() - closing)).as("the records stream ended as the node drained, not after its grace")
                .isLessThan(Duration.ofSeconds(10));
        assertThat(followed.messages.getLast().event()).as("closed before the run ended").isNotEqualTo("run_end");
        followed.rejoinOnNode0AndCancel();
        assertThat(followed.messages.getLast().event()).isEqualTo("run_end");
        assertThat(followed.messages).extracting(m -> Long.parseLong(m.id())).isSorted().doesNotHaveDuplicates();
        assertThat(followed.messages).extracting(m -> CODEC.mapper().readTree(m.data()).path("event").path("seq").asLong())
                .as("each event once, none lost").containsExactlyElementsOf(java.util.stream.LongStream.range(0, followed.messages.size()).boxed().toList());
        SseEvent last = events.removeLast();
        assertThat(last.event()).isEqualTo("error");
        assertThat(CODEC.mapper().readTree(last.data()).path("data").path("code").asString()).isEqualTo("node_draining");
        assertThat(CODEC.mapper().readTree(last.data()).path("data").path("retryable").asBoolean()).isTrue();

        var rest = node0.join(thread, run, events.getLast().id());
        events.addAll(rest.events());
        assertThat(Transcript.of(events).assertWellFormed(run, thread).deltas())
                .isEqualTo("Echo #1: /slow 200 draining node keeps nothing back at all");
    }

    /** An operator's {@code …/runs/{r}/records} stream of a slow background run, opened on node 1. */
    private static final class Followed {
        final List<SseMessage> messages = new ArrayList<>();
        final String thread;
        final String run;
        final InputStream in;
        final SseParser parser;

        private Followed(String thread, String run, InputStream in) throws java.io.IOException {
            this.thread = thread;
            this.run = run;
            this.in = in;
            this.parser = new SseParser(in);
            messages.add(parser.next()); // its run_start: the worker took it
        }

        static Followed start() throws java.io.IOException {
            String words = String.join(" ", java.util.stream.IntStream.range(0, 60).mapToObj(i -> "w" + i).toList());
            JsonNode queued = CODEC.mapper().readTree(node0.background("assistant", null, ApiClient.body("/slow 500 " + words), Map.of()).body());
            String thread = queued.path("thread_id").asString();
            String run = queued.path("run_id").asString();
            HttpResponse<InputStream> records = operator(1).openRecords(thread, run, null);
            if (records.statusCode() != 200) {
                throw new AssertionError(records.statusCode() + " " + new String(records.body().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
            }
            return new Followed(thread, run, records.body());
        }

        void readToItsEnd() throws java.io.IOException {
            try (in) {
                for (SseMessage message; (message = parser.next()) != null; ) {
                    messages.add(message);
                }
            }
        }

        /** Joined again past its last id on node 0; one more record, then the run cancelled and read to its run_end. */
        void rejoinOnNode0AndCancel() throws java.io.IOException {
            try (InputStream rest = operator(0).openRecords(thread, run, messages.getLast().id()).body()) {
                SseParser again = new SseParser(rest);
                messages.add(again.next());
                assertThat(node0.cancel(thread, run).statusCode()).isBetween(200, 299);
                for (SseMessage message; (message = again.next()) != null; ) {
                    messages.add(message);
                }
            }
        }

        private static ApiClient operator(int node) {
            return new ApiClient(pipeline.api(node), Map.of("Authorization", "Bearer " + pipeline.adminToken));
        }
    }

    private static String code(String problem) {
        return CODEC.mapper().readTree(problem).get("code").asString();
    }
}
