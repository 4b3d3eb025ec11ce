package io.agentrun.e2e.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.FaultLoad;
import io.agentrun.e2e.fixture.ResumingRun;
import io.agentrun.e2e.fixture.StackProcess;
import io.agentrun.e2e.fixture.SuiteLanes;
import io.agentrun.infra.kafka.KafkaBroker;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.naming.Topics;
import io.agentrun.platform.redis.RedisConnections;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A replicated Kafka cluster losing a broker under load, with real processes: a 2 api × 2 worker × 2 relay local
 * stack on the test JVM's Kafka cluster (three KRaft nodes, replication factor 3, {@code min.insync.replicas=2}) and
 * Redis Cluster ({@link StackProcess#onClusters}) runs 200 concurrent streams, and more keep coming until the node is
 * back, when the node leading the most partitions of the command and event topics is killed with SIGKILL. It stays
 * down for 20 s, then starts again on its data; it must catch up and rejoin every ISR.
 *
 * <p>Checked: every accepted run reaches {@code run_end} at its client exactly once, events 0..n exactly once, the
 * undisturbed answer (clients join again with {@code Last-Event-ID} when a connection ends early); a refused run
 * never executes; nothing is left queued or running. The figures go to {@code target/reliability-results.md}.
 */
@ExtendWith(RealInfrastructure.class) // the stack runs on its clusters
@Order(SuiteLanes.CLUSTER_STACK_LAST)
@ResourceLock(SuiteLanes.CLUSTER_STACK)
@ResourceLock(SuiteLanes.KAFKA_CLUSTER) // kills a node of the JVM's Kafka cluster, under load
@ResourceLock(value = SuiteLanes.REDIS_CLUSTER, mode = ResourceAccessMode.READ) // the stack runs on it
class ReplicatedKafkaFaultIT {

    /** A new run every 200 ms while the fault lasts (the 200 started at once are the concurrency; these start into it). */
    private static final Duration FEED_EVERY = Duration.ofMillis(200);
    /** How long the killed node stays down: a lost machine, not a restart; the cluster runs on two nodes meanwhile. */
    private static final Duration KEPT_DOWN = Duration.ofSeconds(20);

    static StackProcess stack;
    static RedisConnections redis;
    static List<ApiClient> nodes;

    @BeforeAll
    static void start() {
        stack = StackProcess.onClusters();
        redis = stack.redis();
        nodes = stack.clients();
    }


    @Test
    void theBrokerLeadingTheBusiestPartitionsKilledUnderLoadAndBroughtBackLosesNothing() throws Exception {
        FaultLoad load = FaultLoad.start(nodes, FEED_EVERY, i -> FaultLoad.slowQuery(200, "n" + i));
        List<ResumingRun> runs = load.runs;
        long killed;
        long backMs;
        long inSyncMs;
        int victim;
        Map<Integer, Integer> leadersBefore;
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", stack.kafkaBootstrap()))) {
            leadersBefore = leaderCounts(partitions(admin));
            victim = leadersBefore.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
            String name = "Kafka node " + victim;
            KafkaBroker node = RealInfrastructure.kafkaCluster().broker(victim);
            killed = System.nanoTime();
            node.kill();
            try {
                await("the other nodes to lead every partition").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                        .ignoreExceptions().until(() -> partitions(admin).stream().allMatch(p -> p.leader() != null && p.leader().id() != victim));
                // The fault's length, under load: the node stays down (nothing brought it back) until KEPT_DOWN has passed
                await(name + " to stay down " + KEPT_DOWN.toSeconds() + " s").during(remainingOf(KEPT_DOWN, killed))
                        .atMost(KEPT_DOWN.plusSeconds(10)).pollInterval(Duration.ofMillis(500)).until(() -> !node.isAlive());
            } finally {
                if (!node.isAlive()) {
                    node.startAgain(); // on its data and ports; returns once it serves
                }
            }
            backMs = (System.nanoTime() - killed) / 1_000_000;
            // The runs started while the node was down and as it came back are what the fault is tested with: none
            // start while it catches up (its replicas rejoin the in-sync sets under the runs still streaming).
            load.close();
            await(name + " to rejoin every in-sync replica set").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250))
                    .ignoreExceptions().until(() -> partitions(admin).stream().allMatch(p -> p.isr().size() == 3));
            inSyncMs = (System.nanoTime() - killed) / 1_000_000;
        } finally {
            load.close();
        }

        RunAudit.Audit audit = RunAudit.settleAndAudit(runs, redis, stack.kafkaBootstrap(), FaultLoad.SETTLE);
        List<String> problems = audit.problems();
        List<ResumingRun> accepted = audit.accepted();
        List<ResumingRun> refused = audit.refused();
        long unanswered = audit.unanswered().size();
        long lost = audit.lost();
        long duplicated = audit.duplicated();
        int retried = audit.retried();
        long firstEventAfter = accepted.stream().flatMapToLong(r -> r.arrivals.stream().mapToLong(Long::longValue))
                .filter(t -> t > killed).min().orElse(killed);
        long longestGapMs = accepted.stream().mapToLong(r -> r.longestGapAfter(killed)).max().orElse(0) / 1_000_000;

        String summary = String.format("REPLICATED KAFKA broker %d of 3 killed (leaders before %s): runs %d, accepted %d "
                        + "(attempts>1 %d), refused %d %s, unanswered %d; events lost %d, duplicated %d; first event after the kill "
                        + "%d ms; longest pause of a stream across the kill %d ms; node back %d ms, every ISR full again %d ms",
                victim, leadersBefore, runs.size(), accepted.size(), retried, refused.size(), RunAudit.refusalStatuses(refused),
                unanswered, lost, duplicated, (firstEventAfter - killed) / 1_000_000, longestGapMs, backMs, inSyncMs);
        System.out.println(summary);
        ReliabilityResults.append("| Kafka cluster (3 nodes, RF 3, min ISR 2): the node leading the most partitions killed "
                + "under " + FaultLoad.INITIAL_RUNS + "+ concurrent runs, back after " + KEPT_DOWN.toSeconds() + " s (" + accepted.size()
                + " accepted, " + refused.size() + " refused; recovery = longest pause of a stream across the kill; ISR full again after "
                + inSyncMs + " ms) | " + accepted.size() + " | " + lost + " | " + duplicated + " | " + longestGapMs + " |");

        problems.forEach(p -> System.out.println("REPLICATED KAFKA PROBLEM " + p));
        assertThat(problems).as(summary).isEmpty();
        assertThat(accepted).as("runs were accepted").hasSizeGreaterThanOrEqualTo(FaultLoad.INITIAL_RUNS);
    }

    private static Duration remainingOf(Duration length, long since) {
        Duration passed = Duration.ofNanos(System.nanoTime() - since);
        return passed.compareTo(length) >= 0 ? Duration.ZERO : length.minus(passed);
    }

    /** Every partition of the command and event topics. */
    private static List<TopicPartitionInfo> partitions(Admin admin) throws Exception {
        Collection<String> topics = List.of(Topics.RUN_COMMANDS, Topics.THREAD_EVENTS);
        return admin.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS).values().stream()
                .flatMap(d -> d.partitions().stream()).toList();
    }

    private static Map<Integer, Integer> leaderCounts(List<TopicPartitionInfo> partitions) {
        Map<Integer, Integer> counts = new TreeMap<>();
        partitions.forEach(p -> counts.merge(p.leader().id(), 1, Integer::sum));
        return counts;
    }
}
