package io.agentrun.e2e.suites;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.e2e.fixture.SuiteLanes;
import io.agentrun.e2e.fixture.Transcript;
import io.agentrun.infra.redis.RedisCluster;
import io.agentrun.infra.redis.RedisServer;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.naming.RedisKeys;
import io.lettuce.core.cluster.SlotHash;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * On a Redis Cluster, live events are published on the watching api node's shard channel: only the primary that owns
 * that channel's slot takes them (counted by {@code cmdstat_spublish}; one message per relay batch), and only that primary's replica hears of them over the cluster bus ({@code publishshard}); no node gets a
 * classic, cluster-wide {@code publish} message. A classic {@code PUBLISH},
 * measured alongside for comparison, reaches every node. Counts per node go to {@code target/sharded-pubsub.md}.
 */
@ResourceLock(SuiteLanes.REDIS_CLUSTER) // counts the SPUBLISH commands of every node: no other suite may publish meanwhile
@ExtendWith(RealInfrastructure.class)
class ShardedLiveEventsIT {

    private static final int RUNS = 30;
    private static final int CLASSIC_PROBES = 20;
    private static final String SPUBLISH_CALLS = "cmdstat_spublish";
    private static final String SHARD_SENT = "cluster_stats_messages_publishshard_sent";
    private static final String SHARD_RECEIVED = "cluster_stats_messages_publishshard_received";
    private static final String CLASSIC_RECEIVED = "cluster_stats_messages_publish_received";
    private static final List<String> COUNTERS = List.of(SPUBLISH_CALLS, SHARD_SENT, SHARD_RECEIVED, CLASSIC_RECEIVED);

    static RedisCluster cluster;
    static Pipeline pipeline;
    static ApiClient client;

    @BeforeAll
    static void start() {
        cluster = RealInfrastructure.redisCluster();
        pipeline = Pipeline.startOnRedisCluster(1, 2, 1);
        client = new ApiClient(pipeline.api(0), pipeline.projectId, pipeline.apiKey);
    }

    @AfterAll
    static void stop() {
        if (pipeline != null) {
            pipeline.close();
        }
    }

    @Test
    void aRunsLiveEventsReachOnlyTheShardOfItsChannel() throws Exception {
        Map<RedisServer, Map<String, Long>> before = counters();
        List<String> runIds = streamRuns();
        // The cluster bus carries a message to other nodes after the command has answered: count once it has arrived.
        Map<RedisServer, Map<String, Long>> during = awaitCounted(before,
                counted -> total(counted, SHARD_RECEIVED) >= total(counted, SHARD_SENT));
        for (int i = 0; i < CLASSIC_PROBES; i++) {
            pipeline.redis().sync().publish("ar:probe:classic", "x");
        }
        Map<RedisServer, Map<String, Long>> classic = awaitCounted(before, counted -> counted.values().stream()
                .filter(c -> c.get(CLASSIC_RECEIVED) >= CLASSIC_PROBES).count() >= cluster.nodes().size() - 1);

        RedisServer channelPrimary = cluster.primaryOf(SlotHash.getSlot(
                RedisKeys.nodeChannel(pipeline.apiBean(0, io.agentrun.api.live.LiveEvents.class).nodeId())));
        report(during, classic, channelPrimary, runIds.size());
        for (RedisServer node : cluster.nodes()) {
            Map<String, Long> counted = during.get(node);
            assertThat(counted.get(CLASSIC_RECEIVED)).as("classic pub/sub messages node %d received", node.port()).isZero();
            if (node.equals(channelPrimary)) {
                // one message per relay batch that applied events of this node's runs
                assertThat(counted.get(SPUBLISH_CALLS)).as("SPUBLISH on node %d, primary of the api node's channel", node.port())
                        .isPositive();
            } else {
                assertThat(counted.get(SPUBLISH_CALLS)).as("SPUBLISH on node %d, not the api node's shard", node.port()).isZero();
            }
            // one cluster-bus message per SPUBLISH, to the shard's one replica, and to no other node
            assertThat(counted.get(SHARD_SENT)).as("shard messages node %d sent", node.port()).isEqualTo(counted.get(SPUBLISH_CALLS));
        }
        long published = during.get(channelPrimary).get(SPUBLISH_CALLS);
        long heardByReplicas = during.values().stream().mapToLong(c -> c.get(SHARD_RECEIVED)).sum();
        assertThat(heardByReplicas).as("shard messages received cluster-wide: one per SPUBLISH").isEqualTo(published);
        assertThat(classic.values()).as("a classic PUBLISH reaches every node but the one it was sent to")
                .filteredOn(c -> c.get(CLASSIC_RECEIVED) >= CLASSIC_PROBES).hasSize(cluster.nodes().size() - 1);
    }

    private List<String> streamRuns() throws Exception {
        ExecutorService clients = Executors.newFixedThreadPool(10);
        try {
            List<Future<String>> runs = IntStream.range(0, RUNS).mapToObj(i -> clients.submit(() -> {
                var response = client.stream("assistant", null, ApiClient.body("sharded " + i));
                String runId = response.header("x-run-id");
                Transcript transcript = Transcript.of(response.events()).assertWellFormed(runId, response.header("x-thread-id"));
                assertThat(transcript.runEnd().status()).isEqualTo(RunStatus.COMPLETED);
                return runId;
            })).toList();
            List<String> runIds = new ArrayList<>();
            for (Future<String> run : runs) {
                runIds.add(run.get());
            }
            return runIds;
        } finally {
            clients.shutdownNow();
        }
    }

    private static Map<RedisServer, Map<String, Long>> counters() {
        Map<RedisServer, Map<String, Long>> all = new LinkedHashMap<>();
        for (RedisServer node : cluster.nodes()) {
            all.put(node, COUNTERS.stream().collect(Collectors.toMap(Function.identity(), name -> cluster.counter(node, name))));
        }
        return all;
    }

    /** The counters' change since {@code before} once {@code arrived} holds of it, or after 10 s, as it is then. */
    private static Map<RedisServer, Map<String, Long>> awaitCounted(Map<RedisServer, Map<String, Long>> before,
            Predicate<Map<RedisServer, Map<String, Long>>> arrived) {
        AtomicReference<Map<RedisServer, Map<String, Long>>> last = new AtomicReference<>();
        try {
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
                    .until(() -> arrived.test(last.updateAndGet(ignored -> delta(before, counters()))));
        } catch (ConditionTimeoutException e) {
            // the assertions that follow say what is missing, node by node
        }
        return last.get();
    }

    private static long total(Map<RedisServer, Map<String, Long>> counted, String counter) {
        return counted.values().stream().mapToLong(c -> c.get(counter)).sum();
    }

    private static Map<RedisServer, Map<String, Long>> delta(Map<RedisServer, Map<String, Long>> before,
            Map<RedisServer, Map<String, Long>> after) {
        Map<RedisServer, Map<String, Long>> delta = new LinkedHashMap<>();
        after.forEach((node, counted) -> delta.put(node, counted.entrySet().stream().collect(Collectors.toMap(
                Map.Entry::getKey, e -> e.getValue() - before.get(node).get(e.getKey())))));
        return delta;
    }

    private static void report(Map<RedisServer, Map<String, Long>> during, Map<RedisServer, Map<String, Long>> classic,
            RedisServer channelPrimary, int runs) throws IOException {
        StringBuilder table = new StringBuilder("| node | primary of the api node's channel | SPUBLISH | shard msgs sent | shard msgs received |"
                + " classic msgs received during the runs | after " + CLASSIC_PROBES + " classic PUBLISH |\n|---|---|---|---|---|---|---|\n");
        for (RedisServer node : cluster.nodes()) {
            Map<String, Long> c = during.get(node);
            table.append("| ").append(node.port()).append(" | ").append(node.equals(channelPrimary) ? "yes" : "")
                    .append(" | ").append(c.get(SPUBLISH_CALLS)).append(" | ").append(c.get(SHARD_SENT))
                    .append(" | ").append(c.get(SHARD_RECEIVED)).append(" | ").append(c.get(CLASSIC_RECEIVED))
                    .append(" | ").append(classic.get(node).get(CLASSIC_RECEIVED)).append(" |\n");
        }
        System.out.println("SHARDED PUB/SUB, " + runs + " streamed runs\n" + table);
        Path file = Path.of("target", "sharded-pubsub.md");
        Files.createDirectories(file.getParent());
        Files.writeString(file, table.toString(), StandardCharsets.UTF_8);
    }
}
