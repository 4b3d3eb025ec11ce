package io.agentrun.e2e.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.FaultLoad;
import io.agentrun.e2e.fixture.ResumingRun;
import io.agentrun.e2e.fixture.StackProcess;
import io.agentrun.e2e.fixture.SuiteLanes;
import io.agentrun.e2e.fixture.Transcript;
import io.agentrun.infra.redis.RedisCluster;
import io.agentrun.infra.redis.RedisServer;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import io.lettuce.core.cluster.SlotHash;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A Redis Cluster failing under load, with real processes: a 2 api × 2 worker × 2 relay local stack on the test JVM's
 * Redis Cluster (three primaries, a replica each, {@code cluster-node-timeout} 2 s) and three Kafka nodes
 * ({@link StackProcess#onClusters}) runs 200 concurrent streams, and more keep coming until the fault is over, while
 * the test
 * <ul>
 *   <li>kills with SIGKILL the primary that serves the most running runs; its replica takes over; the old primary
 *       comes back as a replica;</li>
 *   <li>does the same after freezing the replica first, so the primary acknowledges writes no replica has and the
 *       failover drops them: Kafka is the record, and the relays re-apply the topic from before the failover;</li>
 *   <li>moves a sixth of the slots of a primary to another with their keys while the streams run (resharding).</li>
 * </ul>
 * Each time, checked: every accepted run reaches {@code run_end} at its client exactly once, events 0..n once, the
 * undisturbed answer (clients join again with {@code Last-Event-ID} when a connection ends early); a refused run never
 * executes; nothing is left queued or running; and, read afresh, every thread's history and every run's replay are
 * whole. The figures go to {@code target/reliability-results.md}.
 */
@Order(SuiteLanes.CLUSTER_STACK_SUITES)
@ResourceLock(SuiteLanes.CLUSTER_STACK)
@ResourceLock(SuiteLanes.REDIS_CLUSTER) // kills and reshards nodes of the JVM's Redis Cluster, under load
@ResourceLock(value = SuiteLanes.KAFKA_CLUSTER, mode = ResourceAccessMode.READ) // the stack runs on it
@ExtendWith(RealInfrastructure.class)
class RedisClusterFaultIT {

    /** A new run every 200 ms while the fault lasts (the 200 started at once are the concurrency; these start into it). */
    private static final Duration FEED_EVERY = Duration.ofMillis(200);
    private static final Duration HEALED = Duration.ofSeconds(90);
    /** How long a disturbed cluster is given to agree with itself before its nodes' slot views are reconciled. */
    private static final Duration SETTLED = Duration.ofSeconds(30);
    /** By when every client has re-read a changed topology: one periodic re-read and the wait for it to load, with room. */
    private static final Duration TOPOLOGY_SEEN = Duration.ofSeconds(15);

    static RedisCluster cluster;
    static StackProcess stack;
    static RedisConnections redis;
    static List<ApiClient> nodes;

    @BeforeAll
    static void start() {
        cluster = RealInfrastructure.redisCluster();
        stack = StackProcess.onClusters();
        redis = stack.redis();
        nodes = stack.clients();
    }


    @Test
    void thePrimaryServingTheMostRunsKilledUnderLoadIsReplacedByItsReplicaAndLosesNothing() throws Exception {
        underLoad("primary killed, replica promoted, old primary back as a replica", runs -> {
            RedisServer victim = busiestPrimary(runs);
            int slot = aSlotOf(victim);
            long killed = System.nanoTime();
            victim.kill();
            awaitTakeover(slot, victim, "the replica of " + victim.port() + " to take over");
            long promotedMs = (System.nanoTime() - killed) / 1_000_000;
            return new Fault(killed, "promoted after " + promotedMs + " ms", () -> {
                victim.restart();
                awaitHealthy();
            });
        });
    }

    @Test
    void aFailoverThatDropsAcknowledgedWritesComesBackWholeFromKafka() throws Exception {
        underLoad("failover dropping acknowledged writes (replica frozen, then its primary killed)", runs -> {
            RedisServer primary = busiestPrimary(runs);
            RedisServer replica = cluster.replicaOf(primary);
            int slot = aSlotOf(primary);
            List<Double> pausesBefore = sweeperPauses();
            long replicated = Long.parseLong(cluster.info(replica, "replication", "slave_repl_offset"));
            replica.freeze();
            long acknowledged;
            long killed;
            try {
                await("the primary to acknowledge writes its frozen replica does not have").atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(100))
                        .until(() -> Long.parseLong(cluster.info(primary, "replication", "master_repl_offset")) > replicated + 200_000);
                acknowledged = Long.parseLong(cluster.info(primary, "replication", "master_repl_offset"));
                killed = System.nanoTime();
                primary.kill();
            } finally {
                replica.thaw();
            }
            awaitTakeover(slot, primary, "the stale replica " + replica.port() + " to take over");
            long promotedMs = (System.nanoTime() - killed) / 1_000_000;
            assertThat(acknowledged - replicated).as("bytes of acknowledged writes the failover dropped").isPositive();
            return new Fault(killed, "promoted after " + promotedMs + " ms; " + (acknowledged - replicated)
                    + " bytes of acknowledged writes dropped", () -> {
                        // No takeover before the relays re-applied what the failover dropped (a fence read from stale state
                        // mixes two executions in one stream): every worker's sweeper paused. A worker hears of the new
                        // topology on its own client's re-read, which may come after the cluster is whole here; the audit
                        // below finds any mixed stream.
                        for (int w = 0; w < pausesBefore.size(); w++) {
                            int worker = w;
                            await("worker-" + (w + 1) + "'s sweeper to pause after the failover").atMost(TOPOLOGY_SEEN)
                                    .pollInterval(Duration.ofMillis(200))
                                    .until(() -> sweeperPauses().get(worker) > pausesBefore.get(worker));
                        }
                        primary.restart();
                        awaitHealthy();
                    });
        });
    }

    @Test
    void slotsMovedToAnotherPrimaryWhileStreamsRunLoseNothing() throws Exception {
        underLoad("a sixth of a primary's slots moved to another (resharding) while streaming", runs -> {
            RedisServer from = busiestPrimary(runs);
            RedisServer to = cluster.nodes().stream().filter(n -> n != from && "master".equals(role(n))).findFirst().orElseThrow();
            long moved = System.nanoTime();
            // 900 slots and their keys (1,800 until issue 32: the keys every earlier suite left on the JVM's cluster made that
            // take 20-40 s under load; half proves the same redirects)
            cluster.moveSlots(from, to, 900, Path.of("target", "redis-reshard.log"));
            long tookMs = (System.nanoTime() - moved) / 1_000_000;
            return new Fault(moved, "900 slots moved in " + tookMs + " ms", RedisClusterFaultIT::awaitHealthy);
        });
    }

    /**
     * Issue 33's schedule: the primary serving the most runs, then a worker 1.5 s later, then an api node 1.5 s after
     * that (the stack starts each again), with a third of the runs continuing threads that had one turn. Runs the api
     * node had recorded and not confirmed when it died end {@code not_queued} within seconds; then no run hash in
     * Redis is queued or running 30 s after the clients are done, and every continued thread takes its next turn at
     * once (no lock left behind).
     */
    @Test
    void aPrimaryThenAWorkerThenAnApiNodeKilledLeaveNoRunUnsettledAndEveryThreadAnswersItsNextTurn() throws Exception {
        List<String> continued = firstTurns(FaultLoad.INITIAL_RUNS / 3);
        underLoad("primary, worker-1 and api-1 killed 1.5 s apart (new and continued threads)",
                i -> i < continued.size() ? continued.get(i) : null, Duration.ofSeconds(30), runs -> {
                    RedisServer victim = busiestPrimary(runs);
                    int slot = aSlotOf(victim);
                    long killed = System.nanoTime();
                    victim.kill();
                    pause(Duration.ofMillis(1500));
                    stack.kill9("worker-1");
                    pause(Duration.ofMillis(1500));
                    stack.kill9AndAwaitRestart("api-1");
                    awaitTakeover(slot, victim, "the replica of " + victim.port() + " to take over");
                    long promotedMs = (System.nanoTime() - killed) / 1_000_000;
                    return new Fault(killed, "promoted after " + promotedMs + " ms; worker-1 and api-1 killed", () -> {
                        victim.restart();
                        awaitHealthy();
                        await("api-1 to serve again").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                                .ignoreExceptions().until(() -> nodes.get(0).get("/actuator/health/readiness").statusCode() == 200);
                    });
                });

        List<String> busy = new ArrayList<>();
        for (int i = 0; i < continued.size(); i++) {
            var next = nodes.get(i % nodes.size()).stream("assistant", continued.get(i), ApiClient.body("and then"));
            if (next.status() != 200 || Transcript.of(next.events()).runEnd().status() != io.agentrun.model.event.RunStatus.COMPLETED) {
                busy.add(continued.get(i) + " answered " + next.status() + " " + next.body());
            }
        }
        assertThat(busy).as("continued threads whose next turn did not run at once").isEmpty();
    }

    /** {@code count} threads with one ended turn each, started on the api nodes in turn. */
    private static List<String> firstTurns(int count) throws Exception {
        List<java.util.concurrent.Future<String>> threads = new ArrayList<>();
        try (var starts = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < count; i++) {
                ApiClient client = nodes.get(i % nodes.size());
                String first = "first turn " + i;
                threads.add(starts.submit(() -> {
                    var response = client.stream("assistant", null, ApiClient.body(first));
                    assertThat(response.status()).as(first).isEqualTo(200);
                    return response.header("x-thread-id");
                }));
            }
        }
        List<String> ids = new ArrayList<>();
        for (var thread : threads) {
            ids.add(thread.get());
        }
        return ids;
    }

    /** The fault schedule's spacing between two kills (what the operator did by hand), not a wait for a condition. */
    private static void pause(Duration spacing) {
        java.util.concurrent.locks.LockSupport.parkNanos(spacing.toNanos());
    }

    /**
     * A fault done to the cluster under load: when it struck, what to say of it, and what makes the cluster whole again
     * (a killed node back as a replica, every replica in sync) once the clients have met the fault and no new run starts.
     */
    private record Fault(long at, String detail, Healing heal) {
    }

    private interface Healing {
        void run() throws Exception;
    }

    /** Strikes and returns once the clients live with the fault's outcome (a replica promoted, the slots moved). */
    private interface Disturbance {
        Fault apply(List<ResumingRun> runs) throws Exception;
    }

    private void underLoad(String name, Disturbance disturbance) throws Exception {
        underLoad(name, i -> null, FaultLoad.SETTLE, disturbance);
    }

    /**
     * @param thread   the thread run {@code i} continues, or null for a new one
     * @param settled  how long after the clients are done every run hash in Redis may still be queued or running
     */
    private void underLoad(String name, java.util.function.IntFunction<String> thread, Duration settled, Disturbance disturbance)
            throws Exception {
        List<ResumingRun> runs;
        Fault fault;
        long began = System.nanoTime();
        long struck;
        try (FaultLoad load = FaultLoad.start(nodes, FaultLoad.INITIAL_RUNS, FEED_EVERY,
                i -> FaultLoad.slowQuery(200, "n" + i + " " + name.hashCode()), thread, FaultLoad.SETTLE)) {
            runs = load.runs;
            struck = System.nanoTime();
            fault = disturbance.apply(List.copyOf(runs));
        }
        long over = System.nanoTime();
        // The runs started across the fault are what it is tested with: no new ones while the cluster heals.
        fault.heal().run();
        long healed = System.nanoTime();

        RunAudit.Audit audit = RunAudit.settleAndAudit(runs, redis, stack.kafkaBootstrap(), FaultLoad.SETTLE, settled);
        long audited = System.nanoTime();
        List<String> problems = new ArrayList<>(audit.problems());
        problems.addAll(RunAudit.recordProblems(audit.accepted(), nodes.get(0), redis));
        System.out.printf("REDIS CLUSTER %s: load ready %d ms, fault %d ms, heal %d ms, settle and audit %d ms, records %d ms%n", name,
                (struck - began) / 1_000_000, (over - struck) / 1_000_000, (healed - over) / 1_000_000, (audited - healed) / 1_000_000,
                (System.nanoTime() - audited) / 1_000_000);
        long longestGapMs = audit.accepted().stream().mapToLong(r -> r.longestGapAfter(fault.at())).max().orElse(0) / 1_000_000;
        String summary = String.format("REDIS CLUSTER %s (%s): runs %d, accepted %d (attempts>1 %d), refused %d %s, unanswered %d;"
                        + " events lost %d, duplicated %d; longest pause of a stream across the fault %d ms",
                name, fault.detail(), runs.size(), audit.accepted().size(), audit.retried(), audit.refused().size(),
                RunAudit.refusalStatuses(audit.refused()), audit.unanswered().size(), audit.lost(), audit.duplicated(), longestGapMs);
        System.out.println(summary);
        ReliabilityResults.append("| Redis Cluster (3 primaries + 3 replicas): " + name + " under " + FaultLoad.INITIAL_RUNS + "+ concurrent runs ("
                + fault.detail() + "; " + audit.accepted().size() + " accepted, " + audit.refused().size()
                + " refused; recovery = longest pause of a stream across the fault) | " + audit.accepted().size() + " | "
                + audit.lost() + " | " + audit.duplicated() + " | " + longestGapMs + " |");
        // Sharded channels re-subscribed in one command across slots fail with CROSSSLOT: live delivery would rest on the backlog.
        stack.logLinesContaining("CROSSSLOT").forEach(line -> problems.add("log: " + line));
        problems.forEach(p -> System.out.println("REDIS CLUSTER PROBLEM " + p));
        assertThat(problems).as(summary).isEmpty();
        assertThat(audit.accepted()).as("runs were accepted").hasSizeGreaterThanOrEqualTo(FaultLoad.INITIAL_RUNS);
    }

    /** How often each worker's sweeper paused after a Redis fault (worker-1, worker-2). */
    private static List<Double> sweeperPauses() {
        return java.util.stream.Stream.of("worker-1", "worker-2")
                .map(worker -> ZombieWorkerIT.meter(stack.management(worker), "agentrun_worker_sweeper_paused_total")).toList();
    }

    /** The primary whose slots hold the most of these runs (by their run keys' slot). */
    private static RedisServer busiestPrimary(List<ResumingRun> runs) {
        List<RedisServer> primaries = cluster.primariesBySlot();
        Map<RedisServer, Long> byPrimary = runs.stream().map(r -> r.runId).filter(Objects::nonNull)
                .map(run -> primaries.get(SlotHash.getSlot(RedisKeys.run(run)))).filter(Objects::nonNull)
                .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()));
        return byPrimary.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
    }

    private static String role(RedisServer node) {
        return cluster.info(node, "replication", "role");
    }

    /** A hash slot {@code primary} serves now. */
    private static int aSlotOf(RedisServer primary) {
        int slot = cluster.primariesBySlot().indexOf(primary);
        if (slot < 0) {
            throw new IllegalStateException("node " + primary.port() + " serves no slot");
        }
        return slot;
    }

    /** {@code slot}, which {@code lost} served, served by another live primary, and every live node seeing every slot served. */
    private static void awaitTakeover(int slot, RedisServer lost, String what) {
        await(what).atMost(HEALED).pollInterval(Duration.ofMillis(100)).ignoreExceptions().until(() -> cluster.primaryOf(slot) != lost
                && cluster.nodes().stream().filter(RedisServer::isAlive).allMatch(n -> "ok".equals(cluster.state(n))));
    }

    /** Three primaries with a replica each, every replica in sync: ready for the next suite. */
    private static void awaitHealthy() {
        // Nodes that still disagree on a slot's owner after SETTLED (redis-server 7.0, after a reshard and a failover)
        // are told, as an operator would; the streams' promises are audited after it either way.
        List<String> reconciled = cluster.awaitWhole(SETTLED, HEALED);
        if (!reconciled.isEmpty()) {
            System.out.println("REDIS CLUSTER not whole after " + SETTLED + "; slot owners reconciled: " + reconciled);
        }
    }
}
