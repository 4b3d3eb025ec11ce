package io.agentrun.e2e.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.e2e.fixture.SseEvent;
import io.agentrun.e2e.fixture.Watch;
import io.agentrun.api.live.LiveEvents;
import io.agentrun.infra.redis.RedisCluster;
import io.agentrun.infra.redis.RedisServer;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.json.CreatedAt;
import io.agentrun.model.naming.RedisKeys;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A stream open while the Redis Cluster primary that holds its api node's live channel is killed and replaced by its
 * replica (then back as a replica itself), or killed and restarted at once (no failover): once the cluster has a
 * primary for the channel again, the node subscribes there (its client retries a lost node at least every 500 ms)
 * and the stream's events arrive live again — within a second of their {@code created_at}, and none of them read from
 * the backlog ({@code agentrun.stream.events.from_backlog} stays flat). What the failover itself held up is
 * delivered from the backlog meanwhile, and the stream is whole.
 */
// It kills a primary of the JVM's Redis Cluster: no other suite may use the cluster meanwhile. Beside other suites it
// once subscribed again later than its 15 s bound (CI at 161bd18): the client's adaptive topology re-read was then
// rate-limited to once per 30 s, and the promotion waited for the periodic one (RedisConnections).
// Not beside the shared stack's fault suites either: beside CommandHopFaultIT's kills and restarts the node subscribed
// again later than 15 s after a takeover (CI at 1e8dad6). Nor beside three pipeline suites: with the e2e suites four at
// a time, events after the takeover arrived 1.6 s late (CI at dcd2602). So it runs alone, after all the others.
@Isolated
@ExtendWith(RealInfrastructure.class)
class LiveFailoverIT {

    /**
     * 80 deltas (160 words, two a delta) 200 ms apart: the stream outlives the failover (cluster-node-timeout 2 s, a
     * promotion after 4–6 s) by ten seconds. (It was 80 words, 8 s: in the CI at 44d49b5 only 10 events were left.)
     */
    private static final String LONG_RUN = "/slow 200 " + IntStream.range(0, 160).mapToObj(i -> "w" + i).collect(Collectors.joining(" "));
    /** After a replica took over: how soon the api node must have subscribed there (its client re-reads the topology). */
    private static final Duration RESUBSCRIBED = Duration.ofSeconds(15);

    static RedisCluster cluster;
    static Pipeline pipeline;
    static ApiClient client;

    @BeforeAll
    static void start() {
        cluster = RealInfrastructure.redisCluster();
        pipeline = Pipeline.startOnRedisCluster(1, 1, 1);
        client = new ApiClient(pipeline.api(0), pipeline.projectId, pipeline.apiKey);
    }

    @AfterAll
    static void stop() {
        if (pipeline != null) {
            pipeline.close();
        }
        cluster.awaitWhole(Duration.ofSeconds(30), Duration.ofSeconds(90)); // whole again for the suites after this one
    }

    @Test
    void anOpenStreamReceivesLiveEventsAgainWithinASecondOnceAReplicaTookOverItsChannel() {
        OpenStream open = openStream();

        open.primary.kill();
        await("a replica to take over the channel's slot").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100))
                .ignoreExceptions().until(() -> cluster.primaryOf(open.slot) != open.primary);
        open.primary.restart();

        assertLiveAgain(open);
    }

    @Test
    void anOpenStreamReceivesLiveEventsAgainWithinASecondOnceThePrimaryOfItsChannelRestarted() {
        OpenStream open = openStream();

        // Back (from its AOF) within the node timeout, as a process supervisor restarts it: the node's subscription broke
        // with the connection and is made again on the same primary (or on its replica, should it have taken over).
        open.primary.kill();
        open.primary.restart();

        assertLiveAgain(open);
    }

    /** A long stream open on api node 0, with the primary that serves the node's live channel. */
    private record OpenStream(LiveEvents live, int slot, RedisServer primary, Watch watch) {
    }

    private static OpenStream openStream() {
        cluster.awaitWhole(Duration.ofSeconds(30), Duration.ofSeconds(90)); // after the other test's fault, if it ran first
        LiveEvents live = pipeline.apiBean(0, LiveEvents.class);
        int slot = SlotHash.getSlot(RedisKeys.nodeChannel(live.nodeId()));
        return new OpenStream(live, slot, cluster.primaryOf(slot), Watch.stream(client, LONG_RUN).awaitEvents(3));
    }

    /**
     * Once the node subscribed again where its channel's slot is served, and that primary takes writes again, every
     * later event arrives live, within 1 s. (A restarted primary refuses writes, {@code CLUSTERDOWN}, for its first
     * 2 s — Redis's own wait for news of a failover — though it takes subscriptions: nothing can be published then.)
     */
    private static void assertLiveAgain(OpenStream open) {
        LiveEvents live = open.live;
        int slot = open.slot;
        Watch watch = open.watch;
        String channel = RedisKeys.nodeChannel(live.nodeId());
        long waitedFrom = System.nanoTime();
        await("the api node to subscribe to its channel on the slot's primary").atMost(RESUBSCRIBED).pollInterval(Duration.ofMillis(50))
                .ignoreExceptions().until(() -> cluster.shardSubscribers(cluster.primaryOf(slot), channel) >= 1);
        await("the slot's primary to take writes").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .ignoreExceptions().until(() -> cluster.state(cluster.primaryOf(slot)).equals("ok"));
        long liveFrom = System.currentTimeMillis();
        System.out.printf("subscribed again and writable %d ms after the primary was back or replaced%n",
                (System.nanoTime() - waitedFrom) / 1_000_000);
        // What the failover held up is read from the backlog when the first live event after it shows the gap: counted
        // from then on, the node's backlog reads would count those too (beside other suites, 20 of them once).
        await("an event created once the node is live again").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
                .until(() -> watch.events.stream().anyMatch(e -> CreatedAt.millis(e.data()) >= liveFrom));
        long fromBacklogThen = live.eventsFromBacklog();

        assertThat(watch.awaitEnd(Duration.ofSeconds(120))).as("the stream ended normally").isNull();
        List<Long> latenessAfter = new ArrayList<>();
        for (int i = 0; i < watch.events.size(); i++) {
            long created = CreatedAt.millis(watch.events.get(i).data());
            if (created >= liveFrom) {
                latenessAfter.add(watch.arrivedAtMillis.get(i) - created);
            }
        }
        System.out.printf("live again: %d events created after, latest %d ms after created_at%n", latenessAfter.size(),
                latenessAfter.stream().mapToLong(Long::longValue).max().orElse(-1));
        assertThat(watch.events.getLast().event()).isEqualTo("run_end");
        assertThat(watch.events).extracting(SseEvent::id).doesNotHaveDuplicates();
        assertThat(latenessAfter).as("ms from created_at to the client, of events created once the node subscribed again and its primary took writes")
                .hasSizeGreaterThanOrEqualTo(10).allMatch(ms -> ms < 1_000);
        assertThat(live.eventsFromBacklog()).as("events read from the backlog once the node had subscribed again")
                .isEqualTo(fromBacklogThen);
    }
}
