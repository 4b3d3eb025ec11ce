package io.agentrun.e2e.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.FaultLoad;
import io.agentrun.e2e.fixture.ResumingRun;
import io.agentrun.e2e.fixture.StackProcess;
import io.agentrun.e2e.fixture.SuiteLanes;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The command hop under compound faults, with real processes: a 2 api × 2 worker × 2 relay local stack runs
 * 200 concurrent streaming runs (spread over both api nodes) while Kafka is killed (SIGKILL), Redis is killed
 * while Kafka is still coming back, and then — once both are back — a worker and a relay are killed. New runs
 * keep being started all through the faults, so some requests hit the outage and are refused.
 *
 * <p>The promises checked (docs/reliability.md): a run whose request was answered with a stream reaches
 * {@code run_end} exactly once, and the client, joining again with {@code Last-Event-ID} whenever its
 * connection ends early, sees events 0..n exactly once and the undisturbed answer (a {@code run_start} with
 * {@code attempt} ≥ 2 restarts the answer); a run whose request was refused with an {@code x-run-id} never
 * executes (no event in the topic, its state a {@code not_queued} tombstone or absent); and once everything
 * settled no run is left {@code queued} or {@code running}.
 */
@Order(SuiteLanes.SHARED_STACK_SUITES)
@ResourceLock(SuiteLanes.SHARED_STACK) // kills processes of the shared fault stack
class CommandHopFaultIT {

    private static final Duration FEED_EVERY = Duration.ofMillis(200);
    /** From the Kafka kill to the Redis kill. */
    private static final Duration FAULT_SPACING = Duration.ofMillis(1500);

    /** Shared with the other fault suites of this JVM: not closed here. */
    static StackProcess stack;
    static RedisConnections redis;
    static List<ApiClient> nodes;

    @BeforeAll
    static void start() {
        stack = StackProcess.shared();
        redis = stack.redis();
        nodes = stack.clients();
    }


    private static String query(int index) {
        return FaultLoad.slowQuery(300, "n" + index);
    }

    @Test
    void acceptedRunsEndOnceRefusedRunsNeverExecuteAndNothingIsLeftRunning() {
        // Mid-flight before the first fault: most of the first runs are accepted and streaming.
        FaultLoad load = FaultLoad.start(nodes, FEED_EVERY, CommandHopFaultIT::query);
        List<ResumingRun> runs = load.runs;
        long kafkaKilled;
        long lastFault;
        Map<String, Long> faults = new LinkedHashMap<>();
        try {
            // Kafka dies (the stack starts it again, which takes seconds); Redis is killed 1.5 s later, while the
            // broker is still on its way back, so the two outages overlap.
            long kafkaPid = stack.pid("kafka");
            kafkaKilled = System.nanoTime();
            faults.put("kafka", kafkaKilled);
            stack.kill9("kafka");
            await("Kafka to be gone for " + FAULT_SPACING).atMost(FAULT_SPACING.plusSeconds(10)).pollInterval(Duration.ofMillis(50))
                    .until(() -> !ProcessHandle.of(kafkaPid).map(ProcessHandle::isAlive).orElse(false)
                            && System.nanoTime() - kafkaKilled >= FAULT_SPACING.toNanos());
            faults.put("redis", System.nanoTime());
            stack.kill9AndAwaitRestart("redis");
            await("the stack to start Kafka again").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                    .until(() -> stack.pid("kafka") != kafkaPid);
            await("both api nodes to report Kafka and Redis back (health UP)").atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(250)).ignoreExceptions()
                    .until(() -> nodes.stream().allMatch(CommandHopFaultIT::up));
            faults.put("back", System.nanoTime());

            // The test's own Redis connection may still hold the socket Redis's kill reset: ask until it answers.
            String worker = await("a running run's worker").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                    .ignoreExceptions().until(() -> workerOfARunningRun(runs), w -> w != null);
            faults.put(worker, System.nanoTime());
            stack.kill9AndAwaitRestart(worker);
            faults.put("relay-1", System.nanoTime());
            stack.kill9AndAwaitRestart("relay-1");
            lastFault = faults.get("relay-1");
        } finally {
            load.close();
        }
        long feedStopped = System.nanoTime();

        RunAudit.Audit audit = RunAudit.settleAndAudit(runs, redis, stack.kafkaBootstrap(), FaultLoad.SETTLE);
        long settledAt = audit.settledAt();
        List<String> problems = audit.problems();
        List<ResumingRun> accepted = audit.accepted();
        List<ResumingRun> refused = audit.refused();
        List<ResumingRun> unanswered = audit.unanswered();
        long lost = audit.lost();
        long duplicated = audit.duplicated();
        int completed = audit.clean();
        int retried = audit.retried();
        Map<String, Integer> endStatuses = audit.endStatuses();
        int refusedWithId = (int) refused.stream().filter(r -> r.runId != null).count();
        Map<String, Integer> refusalStatuses = RunAudit.refusalStatuses(refused);

        // Runs whose request got no answer: neither promise applies; say what became of them.
        Map<String, Integer> unansweredFates = new TreeMap<>();
        for (ResumingRun run : unanswered) {
            unansweredFates.merge(run.refusal == null ? "?" : run.refusal.replaceAll(":.*", ""), 1, Integer::sum);
        }

        long recoveryMs = accepted.stream().filter(r -> r.postedNanos > kafkaKilled && r.hasRunEnd())
                .mapToLong(r -> r.runEndNanos).min().stream().map(t -> (t - kafkaKilled) / 1_000_000).findFirst().orElse(-1);
        long lastRunEnd = accepted.stream().filter(ResumingRun::hasRunEnd).mapToLong(r -> r.runEndNanos).max().orElse(lastFault);
        long drainMs = (Math.max(lastRunEnd, lastFault) - lastFault) / 1_000_000;
        String summary = String.format("COMMAND HOP FAULTS runs %d: accepted %d (clean transcripts %d, attempts>1 %d, run_end statuses %s), "
                        + "refused %d (with x-run-id %d, statuses %s), unanswered %d %s; events lost %d, duplicated %d; "
                        + "faults at +ms %s; recovery (Kafka killed → first run_end of a run posted after it) %d ms; "
                        + "last fault → last run_end %d ms; fault phase %d ms; clients settled %d ms after the feed stopped",
                runs.size(), accepted.size(), completed, retried, endStatuses, refused.size(), refusedWithId, refusalStatuses,
                unanswered.size(), unansweredFates, lost, duplicated,
                faults.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, f -> (f.getValue() - kafkaKilled) / 1_000_000,
                        (a, b) -> a, LinkedHashMap::new)),
                recoveryMs, drainMs, (lastFault - kafkaKilled) / 1_000_000, (settledAt - feedStopped) / 1_000_000);
        System.out.println(summary);
        ReliabilityResults.append("| Kafka killed, Redis killed while it restarts, then a worker and a relay, under "
                + FaultLoad.INITIAL_RUNS + "+ concurrent runs (" + accepted.size() + " accepted, " + refused.size() + " refused, "
                + unanswered.size() + " unanswered, " + retried + " with attempts > 1; recovery = Kafka kill → first run_end "
                + "of a run posted after it) | " + accepted.size() + " | " + lost + " | " + duplicated + " | " + recoveryMs + " |");

        if (!problems.isEmpty()) {
            problems.forEach(p -> System.out.println("COMMAND HOP FAULTS PROBLEM " + p));
        }
        assertThat(problems).as(summary).isEmpty();
        assertThat(accepted).as("some runs were accepted").hasSizeGreaterThanOrEqualTo(FaultLoad.INITIAL_RUNS / 2);
    }

    private static boolean up(ApiClient node) {
        HttpResponse<String> health = node.get("/actuator/health");
        return health.statusCode() == 200 && health.body().contains("\"UP\"");
    }

    /** The worker of a run that is executing now (so the kill hits work in progress); worker-1 when none is. */
    private static String workerOfARunningRun(List<ResumingRun> runs) {
        for (ResumingRun run : runs.reversed()) {
            if (run.outcome == ResumingRun.Outcome.ACCEPTED && !run.hasRunEnd() && run.runId != null) {
                Map<String, String> state = redis.sync().hgetall(RedisKeys.run(run.runId));
                String worker = state.get("owner");
                if ("running".equals(state.get("status")) && worker != null && worker.startsWith("worker-")) {
                    return worker;
                }
            }
        }
        return "worker-1";
    }
}
