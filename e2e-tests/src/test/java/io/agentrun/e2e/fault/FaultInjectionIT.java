package io.agentrun.e2e.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.ClientView;
import io.agentrun.e2e.fixture.SseEvent;
import io.agentrun.e2e.fixture.StackProcess;
import io.agentrun.e2e.fixture.SuiteLanes;
import io.agentrun.e2e.fixture.Watch;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.model.naming.Topics;
import io.agentrun.platform.kafka.RunEventLog;
import io.agentrun.platform.redis.RedisConnections;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.MemberDescription;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Real faults against real processes: the local stack with 2 api nodes, 2 workers and 2 relays, parts
 * killed with SIGKILL by pid (the stack starts them again). After each fault the client's transcript must
 * equal an undisturbed run's. Each scenario appends its measurements to
 * {@code target/reliability-results.md} (runs, events lost, events duplicated, recovery time).
 */
@Order(SuiteLanes.SHARED_STACK_SUITES)
@ResourceLock(SuiteLanes.SHARED_STACK) // kills processes of the shared fault stack
@ExtendWith(RealInfrastructure.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FaultInjectionIT {

    private static final JsonCodec CODEC = new JsonCodec();
    private static final Duration RUN_LIMIT = Duration.ofSeconds(120);
    private static final String SLOW = "/slow 400 the quick brown fox jumps over the lazy dog and keeps on running far away";

    /** Shared with the other fault suites of this JVM: not closed here. */
    static StackProcess stack;
    static RedisConnections redis;

    @BeforeAll
    static void start() {
        stack = StackProcess.shared();
        redis = stack.redis();
    }


    /**
     * Starts a slow run on api node 0, injects {@code fault} (given the run's watch) after its 4th event, and
     * checks the client's transcript equals an undisturbed run's.
     */
    private static ClientView disturbed(String name, java.util.function.Consumer<Watch> fault) {
        Watch watch = Watch.stream(stack.client(0), SLOW).awaitEvents(4);

        long faultAt = System.nanoTime();
        fault.accept(watch);

        assertThat(watch.awaitEnd(RUN_LIMIT)).isNull();
        ClientView view = view(watch);
        view.assertLikeAnUndisturbedRun("Echo #1: " + SLOW);
        record(name, view, watch.recoveryMs(faultAt));
        return view;
    }

    @Test
    @Order(1)
    void aWorkerKilledMidRunIsReplacedByAnotherAttemptThatCompletes() {
        ClientView view = disturbed("worker killed mid-run", watch -> stack.kill9(redis.sync().hget(RedisKeys.run(watch.runId), "worker")));

        assertThat(view.attempts()).as("a second attempt took over").isGreaterThanOrEqualTo(2);
        assertThat(((EventData.RunStart) view.events().stream().filter(e -> e.data() instanceof EventData.RunStart)
                .reduce((a, b) -> b).orElseThrow().data()).attempt()).isGreaterThanOrEqualTo(2);
    }

    @Test
    @Order(2)
    void aRelayKilledMidRunHandsItsPartitionsToTheOther() {
        disturbed("relay killed mid-run", watch -> stack.kill9(relayOwning(watch.threadId)));
    }

    @Test
    @Order(3)
    void anApiNodeKilledMidRunIsLeftForTheOtherWithLastEventId() {
        Watch first = Watch.stream(stack.client(1), SLOW).awaitEvents(4);

        long fault = System.nanoTime();
        stack.kill9("api-2");
        assertThat(first.awaitEnd(Duration.ofSeconds(30))).as("the connection broke").isNotNull();
        Watch rest = Watch.join(stack.client(0), first.threadId, first.runId, first.lastId());

        assertThat(rest.awaitEnd(RUN_LIMIT)).isNull();
        ClientView view = view(first, rest);
        view.assertLikeAnUndisturbedRun("Echo #1: " + SLOW);
        record("api node killed, client joins the other", view, rest.recoveryMs(fault));
    }

    @Test
    @Order(4)
    void redisRestartedMidRun() {
        disturbed("Redis restarted mid-run", watch -> stack.kill9AndAwaitRestart("redis"));
    }

    @Test
    @Order(5)
    void kafkaRestartedMidRun() {
        disturbed("Kafka broker restarted mid-run", watch -> stack.kill9AndAwaitRestart("kafka"));
    }

    @Test
    @Order(6)
    void cancelMidToolCallStopsTheToolAndEndsCancelled() {
        // Node 1 was killed by an earlier test; the stack restarts it, which may still be under way.
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(120)).ignoreExceptions()
                .until(() -> stack.client(1).get("/actuator/health/liveness").statusCode() == 200);
        Watch watch = Watch.stream(stack.client(0), "/tool wait {\"seconds\": 40}");
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60))
                .until(() -> watch.events.stream().anyMatch(e -> "tool_start".equals(e.event())));

        long fault = System.nanoTime();
        var cancelled = stack.client(1).cancel(watch.threadId, watch.runId);

        assertThat(cancelled.statusCode()).isEqualTo(202);
        assertThat(watch.awaitEnd(Duration.ofSeconds(30))).isNull();
        ClientView view = view(watch);
        assertThat(view.lost()).isZero();
        assertThat(view.duplicates()).isZero();
        List<RunEvent> events = view.events();
        assertThat(events).extracting(e -> e.type().wireName()).containsExactly("run_start", "tool_start", "tool_end", "run_end");
        assertThat(((EventData.ToolEnd) events.get(2).data()).isError()).isTrue();
        assertThat(((EventData.RunEnd) events.getLast().data()).status().wireName()).isEqualTo("cancelled");
        long endedMs = watch.recoveryMs(fault);
        // 15 s, not 5: on a loaded two-core CI machine the restarted node's cancel reached run_end in 6 s (2026-11-29);
        // what this asserts is that the tool was interrupted, and the tool alone would take 40 s.
        assertThat(endedMs).as("cancel took effect within seconds, not after the 40 s tool").isBetween(0L, 15_000L);
        record("cancel mid-tool-call (ms to run_end)", view, endedMs);
    }

    @Test
    @Order(8)
    void aRetryWithItsIdempotencyKeyAfterItsApiNodeWasKilledGetsTheSameRun() {
        // api-2 was killed in an earlier test; the stack starts it again
        await("api-2 to serve again").atMost(Duration.ofSeconds(120)).ignoreExceptions()
                .until(() -> stack.client(1).get("/actuator/health/readiness").statusCode() == 200);
        Map<String, String> key = Map.of("Idempotency-Key", "fault-" + System.nanoTime());
        Watch first = Watch.stream(stack.client(1), SLOW, key).awaitEvents(4);

        long fault = System.nanoTime();
        stack.kill9("api-2");
        assertThat(first.awaitEnd(Duration.ofSeconds(30))).as("the connection broke").isNotNull();
        Map<String, String> retry = new java.util.HashMap<>(key);
        retry.put("Last-Event-ID", first.lastId());
        Watch rest = Watch.stream(stack.client(0), SLOW, retry);

        assertThat(rest.runId).as("the retry got the same run").isEqualTo(first.runId);
        assertThat(rest.awaitEnd(RUN_LIMIT)).isNull();
        ClientView view = view(first, rest);
        view.assertLikeAnUndisturbedRun("Echo #1: " + SLOW);
        record("api node killed, client retries its POST with the same Idempotency-Key", view, rest.recoveryMs(fault));
    }

    @Test
    @Order(7)
    void aSlowClientIsToldToResumeAndLosesNothing() throws Exception {
        String words = String.join(" ", Collections.nCopies(40_000, "w"));
        var response = stack.client(0).openStream("assistant", null, ApiClient.body(words));
        String thread = response.headers().firstValue("x-thread-id").orElseThrow();
        String run = response.headers().firstValue("x-run-id").orElseThrow();
        // Until the relay has published the whole run (end_seq), not just until the worker finished it: the
        // join below should read a settled backlog, not race the relay's tail into its own small queue.
        org.awaitility.Awaitility.await().atMost(RUN_LIMIT).until(() -> redis.sync().hget(RedisKeys.run(run), "end_seq") != null);

        List<SseEvent> first;
        try (var in = response.body()) {
            first = ApiClient.parse(in);
        }
        long fault = System.nanoTime();
        assertThat(first.getLast().event()).isEqualTo("error");
        assertThat(CODEC.mapper().readTree(first.getLast().data()).path("data").path("code").asString()).isEqualTo("slow_consumer");
        Watch rest = Watch.join(stack.client(1), thread, run, lastId(first));

        assertThat(rest.awaitEnd(RUN_LIMIT)).isNull();
        ClientView view = new ClientView();
        view.add(first);
        view.add(rest.events);
        view.assertLikeAnUndisturbedRun("Echo #1: " + words);
        record("slow client overflows, resumes", view, rest.recoveryMs(fault));
    }

    private static ClientView view(Watch... watches) {
        ClientView view = new ClientView();
        for (Watch watch : watches) {
            view.add(watch.events);
        }
        return view;
    }

    private static String lastId(List<SseEvent> events) {
        for (int i = events.size() - 1; i >= 0; i--) {
            if (events.get(i).id() != null) {
                return events.get(i).id();
            }
        }
        return null;
    }

    /** The relay whose consumer holds the thread's partition of the event topic. */
    private static String relayOwning(String threadId) {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", stack.kafkaBootstrap()))) {
            int partitions = admin.describeTopics(List.of(Topics.THREAD_EVENTS)).allTopicNames().get()
                    .get(Topics.THREAD_EVENTS).partitions().size();
            int partition = RunEventLog.partitionOf(threadId, partitions);
            for (MemberDescription member : admin.describeConsumerGroups(List.of(Topics.RELAY_GROUP)).all().get()
                    .get(Topics.RELAY_GROUP).members()) {
                if (member.assignment().topicPartitions().stream().anyMatch(tp -> tp.partition() == partition)) {
                    return member.clientId();
                }
            }
        } catch (java.util.concurrent.ExecutionException | InterruptedException e) {
            throw new IllegalStateException("could not describe the relay group", e);
        }
        throw new AssertionError("no relay owns the partition of " + threadId);
    }

    private static void record(String fault, ClientView view, long recoveryMs) {
        ReliabilityResults.append("| " + fault + " | 1 | " + view.lost() + " | " + view.duplicates() + " | " + recoveryMs + " |");
    }
}
