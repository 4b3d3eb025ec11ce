package io.agentrun.e2e.suites;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.agentrun.e2e.fixture.FaultLoad;
import io.agentrun.e2e.fixture.LossyProxy;
import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.e2e.fixture.SuiteLanes;
import io.agentrun.client.AgentrunClient;
import io.agentrun.client.AgentrunException;
import io.agentrun.client.Notice;
import io.agentrun.client.RunInfo;
import io.agentrun.client.RunRequest;
import io.agentrun.client.RunStream;
import io.agentrun.client.ThreadMessage;
import io.agentrun.infra.process.Ports;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.command.ResponseFormat;
import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.json.JsonCodec;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

/**
 * The Java SDK ({@code clients/java}) against the real pipeline: api node → Kafka → worker → relay → Redis, over real
 * HTTP. What an SDK user relies on: typed events in order to {@code run_end}, a broken stream resumed with each seq
 * once, the reads, cancel, delete, uploads, problem+json as typed exceptions without the key, structured output, and
 * a POST whose answer was lost sent again with the same Idempotency-Key to the same run.
 */
@ExtendWith(RealInfrastructure.class)
@Order(SuiteLanes.LONG_PIPELINE_SUITES)
class JavaSdkIT {

    private static final JsonCodec CODEC = new JsonCodec();
    private static final String SCHEMA = "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"},"
            + "\"temperature_c\":{\"type\":\"number\"}},\"required\":[\"city\",\"temperature_c\"]}";

    static Pipeline pipeline;
    static AgentrunClient client;
    /** Every exception a test saw: none may carry the key. */
    static final List<Throwable> seen = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() throws IOException {
        int port = Ports.reserve();
        pipeline = Pipeline.start(1, 1, 1, Map.of(
                "server.port", port,
                "agentrun.storage.backend", "local",
                "agentrun.storage.signing-secret", "java-sdk-it-" + UUID.randomUUID(),
                "agentrun.storage.local.dir", Files.createTempDirectory("java-sdk-it").toString(),
                "agentrun.storage.local.public-url", "http://localhost:" + port));
        client = sdk(pipeline.api(0));
    }

    @AfterAll
    static void stop() {
        client.close();
        pipeline.close();
    }

    @AfterEach
    void noExceptionCarriesTheKey() {
        for (Throwable t : seen) {
            for (Throwable c = t; c != null; c = c.getCause()) {
                assertThat(c.toString()).doesNotContain(pipeline.apiKey);
                assertThat(String.valueOf(c.getMessage())).doesNotContain(pipeline.apiKey);
            }
        }
    }

    private static AgentrunClient sdk(URI base) {
        return AgentrunClient.builder().baseUrl(base).apiKey(pipeline.apiKey).projectId(pipeline.projectId).build();
    }

    private static List<RunEvent> drain(RunStream stream) {
        List<RunEvent> events = new ArrayList<>();
        stream.forEach(events::add);
        return events;
    }

    private static AgentrunException thrown(Runnable call) {
        try {
            call.run();
        } catch (AgentrunException e) {
            seen.add(e);
            return e;
        }
        throw new AssertionError("expected an AgentrunException");
    }

    /** seq 0..n, each once, in order; run_start first, run_end last and only there. */
    private static void assertWhole(List<RunEvent> events) {
        assertThat(events).isNotEmpty();
        for (int i = 0; i < events.size(); i++) {
            assertThat(events.get(i).seq()).as("event %d", i).isEqualTo(i);
        }
        assertThat(events.getFirst().data()).isInstanceOf(EventData.RunStart.class);
        assertThat(events.getLast().data()).isInstanceOf(EventData.RunEnd.class);
        assertThat(events.stream().filter(e -> e.data() instanceof EventData.RunEnd)).hasSize(1);
    }

    private static EventData.RunEnd end(List<RunEvent> events) {
        return (EventData.RunEnd) events.getLast().data();
    }

    @Test
    void aStreamYieldsTypedEventsInOrderToRunEnd() {
        List<RunEvent> events;
        String runId;
        String threadId;
        try (RunStream stream = client.runs().stream("assistant", RunRequest.of("Hello, agent"))) {
            runId = stream.runId();
            threadId = stream.threadId();
            assertThat(runId).startsWith("run_");
            assertThat(threadId).startsWith("thr_");
            events = drain(stream);
            assertThat(stream.attempts()).isEqualTo(1);
            assertThat(stream.joins()).isZero();
        }

        assertWhole(events);
        assertThat(events).allSatisfy(e -> {
            assertThat(e.runId()).isEqualTo(runId);
            assertThat(e.threadId()).isEqualTo(threadId);
        });
        String deltas = events.stream().map(RunEvent::data).filter(d -> d instanceof EventData.MessageDelta)
                .map(d -> ((EventData.MessageDelta) d).delta()).reduce("", String::concat);
        assertThat(deltas).isEqualTo("Echo #1: Hello, agent");
        assertThat(events.get(events.size() - 2).data()).isInstanceOfSatisfying(EventData.MessageFinal.class,
                f -> assertThat(f.content()).isEqualTo("Echo #1: Hello, agent"));
        assertThat(end(events).status()).isEqualTo(RunStatus.COMPLETED);
        assertThat(end(events).output()).isEqualTo("Echo #1: Hello, agent");

        RunInfo run = client.runs().get(runId);
        assertThat(run.status()).isEqualTo(RunStatus.COMPLETED);
        assertThat(run.mode()).isEqualTo("stream");
        assertThat(run.threadId()).isEqualTo(threadId);
        assertThat(run.output()).isEqualTo("Echo #1: Hello, agent");
        assertThat(run.usage()).isNotNull();
    }

    @Test
    void aThreadIsContinuedAndReadBackInPages() {
        String threadId;
        try (RunStream first = client.runs().stream("assistant", RunRequest.of("one"))) {
            threadId = first.threadId();
            drain(first);
        }
        for (String q : List.of("two", "three")) {
            try (RunStream next = client.runs().stream("assistant", RunRequest.of(q).withThreadId(threadId))) {
                assertThat(next.threadId()).isEqualTo(threadId);
                List<RunEvent> events = drain(next);
                assertWhole(events);
                assertThat(end(events).output()).isEqualTo("Echo #" + ("two".equals(q) ? 2 : 3) + ": " + q);
            }
        }

        assertThat(client.threads().get(threadId).messageCount()).isEqualTo(6);
        // pages of 2, newest page first, each oldest first
        List<ThreadMessage> messages = client.threads().messages(threadId, 2).toList();
        assertThat(messages).extracting(ThreadMessage::content)
                .containsExactly("three", "Echo #3: three", "two", "Echo #2: two", "one", "Echo #1: one");
        List<RunInfo> runs = client.threads().runs(threadId, 2).toList();
        assertThat(runs).hasSize(3).allSatisfy(r -> assertThat(r.status()).isEqualTo(RunStatus.COMPLETED));
        assertThat(runs).extracting(RunInfo::output).containsExactly("Echo #3: three", "Echo #2: two", "Echo #1: one");
    }

    @Test
    void aStreamCutMidWayIsJoinedAgainWithEachSeqOnce() {
        var second = pipeline.startApi(Map.of("server.port", 0));
        int secondIndex = pipeline.apiCount() - 1;
        // the proxy's first connection goes to the node about to be shut down, the next ones to node 0
        try (LossyProxy proxy = LossyProxy.start(List.of(Pipeline.baseOf(second), pipeline.api(0)), 0.0);
                AgentrunClient viaProxy = sdk(proxy.uri());
                RunStream stream = viaProxy.runs().stream("assistant", RunRequest.of(FaultLoad.slowQuery(300, "cut")))) {
            var events = stream.iterator();
            List<RunEvent> got = new ArrayList<>();
            while (got.size() < 3) {
                got.add(events.next());
            }
            CompletableFuture<Void> shutdown = CompletableFuture.runAsync(() -> pipeline.closeApi(secondIndex));
            events.forEachRemaining(got::add);
            shutdown.join();

            assertWhole(got);
            assertThat(end(got).output()).isEqualTo("Echo #1: " + FaultLoad.slowQuery(300, "cut"));
            assertThat(stream.joins()).as("joined again after the node went away").isGreaterThanOrEqualTo(1);
        }
    }

    @Test
    void aQueuedTurnTellsItsPlaceAsANoticeThatMovesNoLastEventId() {
        try (RunStream busy = client.runs().stream("assistant", RunRequest.of("/slow 300 a b c d e"))) {
            List<Notice> notices = new CopyOnWriteArrayList<>();
            try (RunStream queued = client.runs().stream("assistant",
                    RunRequest.of("after you").withThreadId(busy.threadId()).withIfBusy(RunRequest.IfBusy.ENQUEUE))) {
                queued.onNotice(notices::add);
                drain(busy);
                List<RunEvent> events = drain(queued);

                assertWhole(events);
                assertThat(end(events).output()).isEqualTo("Echo #2: after you");
                assertThat(notices).extracting(Notice::type).containsExactly("run_waiting");
                assertThat(notices.getFirst().seq()).isNull();
                assertThat(notices.getFirst().envelope().path("data").path("behind_run_id").asString()).isEqualTo(busy.runId());
            }
        }
    }

    @Test
    void aPublisherDeliversTheRunToItsSubscriber() throws Exception {
        List<RunEvent> got = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> done = new CompletableFuture<>();
        try (RunStream stream = client.runs().stream("assistant", RunRequest.of("published"))) {
            stream.publisher().subscribe(new Flow.Subscriber<>() {
                @Override
                public void onSubscribe(Flow.Subscription subscription) {
                    subscription.request(Long.MAX_VALUE);
                }

                @Override
                public void onNext(RunEvent item) {
                    got.add(item);
                }

                @Override
                public void onError(Throwable throwable) {
                    done.completeExceptionally(throwable);
                }

                @Override
                public void onComplete() {
                    done.complete(null);
                }
            });
            done.get(60, TimeUnit.SECONDS);
        }
        assertWhole(got);
        assertThat(end(got).output()).isEqualTo("Echo #1: published");
    }

    @Test
    void aOneOffRunAnswersItsResult() {
        var result = client.runs().run("assistant", RunRequest.of("Just once"));

        assertThat(result.runId()).startsWith("run_");
        assertThat(result.status()).isEqualTo(RunStatus.COMPLETED);
        assertThat(result.output()).isEqualTo("Echo #1: Just once");
        assertThat(result.outputJson()).isNull();
        assertThat(client.runs().get(result.runId()).mode()).isEqualTo("one_off");
    }

    @Test
    void aBackgroundRunIsCreatedAndWaitedFor() {
        var accepted = client.runs().create("assistant", RunRequest.of("Summarise the quarter"));

        assertThat(accepted.runId()).startsWith("run_");
        assertThat(accepted.links().stream()).isEqualTo("/api/v1/threads/" + accepted.threadId() + "/runs/" + accepted.runId() + "/stream");
        RunInfo run = client.runs().wait(accepted.runId(), Duration.ofSeconds(60));
        assertThat(run.status()).isEqualTo(RunStatus.COMPLETED);
        assertThat(run.mode()).isEqualTo("background");
        assertThat(run.output()).as("%s", run).isEqualTo("Echo #1: Summarise the quarter");
        // and its events can be joined after the fact, from the start
        try (RunStream replay = client.runs().join(accepted.threadId(), accepted.runId(), -1)) {
            assertWhole(drain(replay));
        }
    }

    @Test
    void aCancelledRunEndsCancelled() {
        try (RunStream stream = client.runs().stream("assistant", RunRequest.of("/slow 400 a b c d e f g h i j k l"))) {
            var events = stream.iterator();
            List<RunEvent> got = new ArrayList<>();
            while (got.isEmpty() || !(got.getLast().data() instanceof EventData.MessageDelta)) {
                got.add(events.next());
            }
            var cancelled = client.runs().cancel(stream.threadId(), stream.runId());
            assertThat(cancelled.status()).isEqualTo("cancelling");
            events.forEachRemaining(got::add);

            assertWhole(got);
            assertThat(end(got).status()).isEqualTo(RunStatus.CANCELLED);
        }
    }

    @Test
    void aDeletedThreadIsGone() {
        String threadId;
        try (RunStream stream = client.runs().stream("assistant", RunRequest.of("forget me"))) {
            threadId = stream.threadId();
            drain(stream);
        }

        var deleted = client.threads().delete(threadId);
        assertThat(deleted.deleted()).isTrue();
        assertThat(deleted.threadId()).isEqualTo(threadId);
        AgentrunException gone = thrown(() -> client.threads().get(threadId));
        assertThat(gone.status()).isEqualTo(404);
        assertThat(gone.code()).isEqualTo("thread_not_found");
    }

    @Test
    void anUploadIsPutViewedAndReadByARun() {
        byte[] notes = "# Notes\nThe quarter went well.\n".getBytes(StandardCharsets.UTF_8);
        var upload = client.uploads().request("notes.md", "text/markdown");
        client.uploads().put(upload.signedUrl(), notes, "text/markdown");
        var view = client.uploads().viewUrl(upload.blobPath());

        try (RunStream stream = client.runs().stream("assistant", RunRequest.of("Summarise").withDocuments(List.of(view.viewUrl().toString())))) {
            List<RunEvent> events = drain(stream);
            assertThat(end(events).output()).isEqualTo("Echo #1: Summarise [document " + notes.length + " bytes]");
        }
        AgentrunException wrongType = thrown(() -> client.uploads().put(upload.signedUrl(), notes, "text/plain"));
        assertThat(wrongType.status()).isEqualTo(403);
    }

    @Test
    void problemsAreTypedExceptionsWithoutTheKey() {
        AgentrunException unknownAgent = thrown(() -> client.runs().stream("no-such-agent", RunRequest.of("hi")));
        assertThat(unknownAgent.status()).isEqualTo(404);
        assertThat(unknownAgent.code()).isEqualTo("agent_not_found");
        assertThat(unknownAgent.title()).isNotBlank();

        AgentrunException blank = thrown(() -> client.runs().run("assistant", RunRequest.of("   ")));
        assertThat(blank.status()).isEqualTo(400);
        assertThat(blank.code()).isEqualTo("invalid_request");
        assertThat(blank.detail()).isPresent();

        AgentrunException badSchema = thrown(() -> client.runs().run("assistant", RunRequest.of("q")
                .withResponseFormat(ResponseFormat.jsonSchema("bad", CODEC.mapper().readTree("{\"type\":1}")))));
        assertThat(badSchema.code()).isEqualTo("invalid_response_format");

        AgentrunException unknownRun = thrown(() -> client.runs().get("run_aaaaaaaaaaaaaaaaaaaaaaaaaa"));
        assertThat(unknownRun.code()).isEqualTo("run_not_found");

        try (AgentrunClient wrongKey = AgentrunClient.builder().baseUrl(pipeline.api(0)).apiKey(pipeline.apiKey + "x")
                .projectId(pipeline.projectId).build()) {
            AgentrunException unauthorized = thrown(() -> wrongKey.runs().get("run_aaaaaaaaaaaaaaaaaaaaaaaaaa"));
            assertThat(unauthorized.status()).isEqualTo(401);
            assertThat(unauthorized.toString()).doesNotContain(pipeline.apiKey);
        }
        assertThat(seen).isNotEmpty();
    }

    @Test
    void anAnswerInAJsonSchemaIsParsed() {
        ResponseFormat weather = ResponseFormat.jsonSchema("weather", CODEC.mapper().readTree(SCHEMA));
        String query = "/json {\"city\":\"Oslo\",\"temperature_c\":-3.5}";

        var result = client.runs().run("assistant", RunRequest.of(query).withResponseFormat(weather));
        assertThat(result.outputJson()).isNotNull();
        assertThat(result.outputJson().get("city").asString()).isEqualTo("Oslo");
        assertThat(result.outputJson().get("temperature_c").asDouble()).isEqualTo(-3.5);

        try (RunStream stream = client.runs().stream("assistant", RunRequest.of(query).withResponseFormat(weather))) {
            List<RunEvent> events = drain(stream);
            JsonNode json = end(events).outputJson();
            assertThat(json).isEqualTo(result.outputJson());
            assertThat(client.runs().get(stream.runId()).outputJson()).isEqualTo(json);
        }
    }

    /**
     * Through a proxy that loses half of the POST answers (the run starts; the client hears nothing), each stream is
     * sent again with its Idempotency-Key until an answer arrives: the run it streams is the one the first request
     * started, and its thread has that one run. Each stream gets its own client, so each POST opens a connection
     * the proxy judges.
     */
    @Test
    void aPostWhoseAnswerWasLostIsSentAgainAndGetsTheSameRun() {
        try (LossyProxy proxy = LossyProxy.start(List.of(pipeline.api(0)), 0.5)) {
            int retried = 0;
            for (int i = 0; i < 40 && (proxy.answersDropped() == 0 || retried < 2); i++) {
                try (AgentrunClient viaProxy = sdk(proxy.uri());
                        RunStream stream = viaProxy.runs().stream("assistant", RunRequest.of("kept " + i))) {
                    List<RunEvent> events = drain(stream);
                    assertWhole(events);
                    assertThat(end(events).output()).isEqualTo("Echo #1: kept " + i);
                    List<RunInfo> runs = client.threads().runs(stream.threadId()).toList();
                    assertThat(runs).extracting(RunInfo::runId).as("the thread has exactly the one run").containsExactly(stream.runId());
                    retried += stream.attempts() > 1 ? 1 : 0;
                }
            }
            assertThat(proxy.answersDropped()).isPositive();
            assertThat(retried).as("streams whose POST was sent again").isGreaterThanOrEqualTo(2);
        }
    }

    @Test
    void aOneOffWhoseAnswerWasLostIsSentAgainAndAnswersOnce() {
        try (LossyProxy proxy = LossyProxy.start(List.of(pipeline.api(0)), 0.5)) {
            for (int i = 0; i < 40 && proxy.answersDropped() == 0; i++) {
                try (AgentrunClient viaProxy = sdk(proxy.uri())) {
                    var result = viaProxy.runs().run("assistant", RunRequest.of("once " + i));
                    assertThat(result.output()).isEqualTo("Echo #1: once " + i);
                }
            }
            assertThat(proxy.answersDropped()).isPositive();
        }
    }
}
