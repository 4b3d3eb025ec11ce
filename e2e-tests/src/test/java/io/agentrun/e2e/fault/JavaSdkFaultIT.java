package io.agentrun.e2e.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.e2e.fixture.EventTopic;
import io.agentrun.e2e.fixture.FaultLoad;
import io.agentrun.e2e.fixture.LossyProxy;
import io.agentrun.e2e.fixture.StackProcess;
import io.agentrun.e2e.fixture.SuiteLanes;
import io.agentrun.client.AgentrunClient;
import io.agentrun.client.RunInfo;
import io.agentrun.client.RunRequest;
import io.agentrun.client.RunStream;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.event.RunStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Java SDK under faults, against the local stack as child processes (2 api nodes, 2 workers, 2 relays): 200
 * concurrent SDK streams, each on a new thread, through a proxy that loses some POST answers, while an api node,
 * then a worker, then a relay are SIGKILLed. Every stream must yield seq 0..n once, in order, ending with
 * {@code run_end} {@code completed} and the undisturbed answer, and no run may have executed twice: each query was
 * started once (the event topic holds one run for it) and its thread has that one run.
 */
@Order(SuiteLanes.CLUSTER_STACK_SUITES)
@ResourceLock(SuiteLanes.CLUSTER_STACK) // kills processes of the cluster fault stack (its lane is the shorter one)
@ResourceLock(value = SuiteLanes.REDIS_CLUSTER, mode = ResourceAccessMode.READ) // the stack runs on it
@ExtendWith(RealInfrastructure.class)
class JavaSdkFaultIT {

    private static final int STREAMS = 200;
    private static final double DROP = 0.08;
    private static final Duration SETTLE = Duration.ofMinutes(4);
    /**
     * 13 deltas this far apart: about 30 s a run, so all three faults strike while the runs stream (at 20 s a run, a
     * loaded machine's slow api restart left 13 of 200 streams in flight for the second fault).
     */
    private static final int DELTA_MILLIS = 2300;

    /** Shared with the other cluster fault suites of this JVM: not closed here. */
    static StackProcess stack;
    @AutoClose
    static LossyProxy proxy;
    @AutoClose
    static AgentrunClient client;

    @BeforeAll
    static void start() {
        stack = StackProcess.onClusters();
        proxy = LossyProxy.start(List.of(stack.api(0), stack.api(1)), DROP);
        client = AgentrunClient.builder().baseUrl(proxy.uri()).apiKey(StackProcess.API_KEY).projectId("demo")
                .retry(Duration.ofMillis(100), Duration.ofSeconds(3), Duration.ofMinutes(3)).build();
    }

    private static final String SUITE_RUN = Long.toString(System.nanoTime(), 36);

    /** What one stream's client saw. */
    static final class Seen {
        final int index;
        final String query;
        final List<RunEvent> events = new CopyOnWriteArrayList<>();
        volatile RunStream stream;
        volatile Throwable failure;

        Seen(int index) {
            this.index = index;
            // Unique to this suite's run: the shared stack's topic holds other suites' runs too (the TypeScript SDK's
            // fault suite streams "sdk-<i>" queries of its own).
            this.query = FaultLoad.slowQuery(DELTA_MILLIS, "java-sdk-" + SUITE_RUN + "-" + index);
        }

        void run() {
            try (RunStream s = client.runs().stream("assistant", RunRequest.of(query))) {
                stream = s;
                for (RunEvent event : s) {
                    events.add(event);
                }
            } catch (Throwable t) {
                failure = t;
            }
        }

        /** Null when the stream was whole: seq 0..n once, in order, run_end completed last with the undisturbed answer. */
        String problem() {
            if (failure != null) {
                return "failed: " + failure;
            }
            String shape = RunAudit.sdkStreamProblem(events);
            if (shape != null) {
                return shape;
            }
            EventData.RunEnd end = (EventData.RunEnd) events.getLast().data();
            String expected = "Echo #1: " + query;
            if (end.status() != RunStatus.COMPLETED || !expected.equals(end.output())) {
                return "run_end " + end.status() + " '" + end.output() + "'";
            }
            return null;
        }
    }

    @Test
    void twoHundredSdkStreamsSurviveKilledNodesAndLostAnswersWithEachEventOnceAndEachRunOnce() throws Exception {
        List<Seen> seen = new ArrayList<>();
        List<String> kills = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < STREAMS; i++) {
                Seen s = new Seen(i);
                seen.add(s);
                done.add(threads.submit(s::run));
            }
            await("half of the streams to flow").atMost(Duration.ofSeconds(120))
                    .until(() -> seen.stream().filter(s -> s.events.size() >= 3).count() >= STREAMS / 2);

            long start = System.nanoTime();
            for (String name : List.of("api-1", "worker-1", "relay-1")) {
                long before = eventsYielded(seen);
                long inFlight = seen.stream().filter(s -> !ended(s) && s.failure == null).count();
                assertThat(inFlight).as("streams in flight when %s is killed", name).isGreaterThanOrEqualTo(STREAMS / 2);
                stack.kill9AndAwaitRestart(name);
                kills.add(name + " at " + Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms with " + inFlight + " streams in flight");
                // the next fault strikes once the streams flow again: 300 more events reached the clients
                await("streams to flow again after killing " + name).atMost(Duration.ofSeconds(90))
                        .until(() -> eventsYielded(seen) >= before + 300);
            }
            for (Future<?> f : done) {
                f.get(SETTLE.toSeconds(), TimeUnit.SECONDS);
            }
        }

        Map<Integer, String> problems = new TreeMap<>();
        for (Seen s : seen) {
            String problem = s.problem();
            if (problem != null) {
                problems.put(s.index, problem);
            }
        }
        // No run executed twice: the event topic holds exactly one run for each query, and each thread has that run.
        Map<String, List<String>> runsByQuery = EventTopic.readAll(stack.kafkaBootstrap(), Duration.ofSeconds(60)).entrySet().stream()
                .filter(e -> e.getValue().stream().anyMatch(ev -> ev.data() instanceof EventData.RunStart))
                .collect(Collectors.groupingBy(e -> query(e.getValue()), Collectors.mapping(Map.Entry::getKey, Collectors.toList())));
        int executedTwice = 0;
        for (Seen s : seen) {
            List<String> runs = runsByQuery.getOrDefault(s.query, List.of());
            if (runs.size() != 1 || s.stream == null || !runs.getFirst().equals(s.stream.runId())) {
                executedTwice += runs.size() > 1 ? 1 : 0;
                problems.merge(s.index, "runs in the topic for its query: " + runs, (a, b) -> a + "; " + b);
                continue;
            }
            List<String> threadRuns = client.threads().runs(s.stream.threadId()).map(RunInfo::runId).toList();
            if (!threadRuns.equals(List.of(s.stream.runId()))) {
                problems.merge(s.index, "thread runs " + threadRuns, (a, b) -> a + "; " + b);
            }
        }

        int joins = seen.stream().mapToInt(s -> s.stream == null ? 0 : s.stream.joins()).sum();
        int joinRequests = seen.stream().mapToInt(s -> s.stream == null ? 0 : s.stream.joinRequests()).sum();
        int postRetries = seen.stream().mapToInt(s -> s.stream == null ? 0 : s.stream.attempts() - 1).sum();
        long retriedAttempts = seen.stream().filter(s -> s.events.stream()
                .anyMatch(e -> e.data() instanceof EventData.RunStart start && start.attempt() > 1)).count();
        String figures = "SDK fault test: streams " + STREAMS + ", whole " + (STREAMS - problems.size()) + ", events " + eventsYielded(seen)
                + ", answers dropped by the proxy " + proxy.answersDropped() + " (of " + proxy.connections() + " connections)"
                + ", POST retries " + postRetries + ", rejoins " + joins + " (join requests " + joinRequests + ")"
                + ", runs taken over by another worker attempt " + retriedAttempts + ", kills " + kills
                + ", runs executed twice " + executedTwice;
        System.out.println(figures);

        assertThat(problems).as(figures).isEmpty();
        assertThat(executedTwice).isZero();
        assertThat(proxy.answersDropped()).as("the proxy lost answers").isPositive();
        assertThat(postRetries).as("lost answers were sent again").isGreaterThanOrEqualTo(proxy.answersDropped());
        assertThat(joins).as("streams joined again after the api node died").isPositive();
        assertThat(retriedAttempts).as("runs the killed worker held were taken over").isPositive();
    }

    private static boolean ended(Seen s) {
        return !s.events.isEmpty() && s.events.getLast().data() instanceof EventData.RunEnd;
    }

    private static long eventsYielded(List<Seen> seen) {
        return seen.stream().mapToLong(s -> s.events.size()).sum();
    }

    private static String query(List<RunEvent> events) {
        return events.stream().map(RunEvent::data).filter(d -> d instanceof EventData.RunStart)
                .map(d -> ((EventData.RunStart) d).input().query()).findFirst().orElse("");
    }
}
