package io.agentrun.api.live;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.id.Ids;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import io.lettuce.core.XAddArgs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Exactly once and in order, whatever the live channel does: against a real Redis, with the relay's
 * writes played by hand (buffer entry first, then publish).
 */
@ExtendWith(RealInfrastructure.class)
class RunSubscriptionIT {

    private static final JsonCodec CODEC = new JsonCodec();
    static RedisConnections redis;
    static LiveEvents live;

    @BeforeAll
    static void connect() {
        redis = RedisConnections.connect(RealInfrastructure.redisUrl());
        var clients = new org.springframework.boot.kafka.autoconfigure.KafkaProperties();
        clients.setBootstrapServers(java.util.List.of(RealInfrastructure.kafkaBootstrapServers()));
        var kafka = new io.agentrun.platform.kafka.TopicReaders(io.agentrun.platform.kafka.ClientDefaults.consumerFactory(clients),
                new io.agentrun.platform.kafka.KafkaSettings("c", "e", 1, 1, (short) -1, Duration.ofDays(1), "w", "r", Duration.ofSeconds(5)));
        var runs = new io.agentrun.platform.store.RunStore(redis, new io.agentrun.platform.store.StateSettings(
                Duration.ofDays(1), Duration.ofDays(1), Duration.ofMinutes(1), Duration.ofHours(1), 1000, Duration.ofSeconds(30)));
        Backlog backlog = new Backlog(new ResumeBuffer(redis, CODEC), runs, new io.agentrun.platform.kafka.RunEventLog(kafka), CODEC);
        live = new LiveEvents(redis, CODEC, backlog, Duration.ofMillis(300), 100, Duration.ofSeconds(5), Duration.ofMinutes(5));
    }

    @AfterAll
    static void close() {
        live.destroy();
        redis.close();
    }

    @Test
    void duplicatesAreDroppedAndOrderIsKept() throws Exception {
        String runId = Ids.newRunId();
        try (RunSubscription subscription = live.subscribe(runId, 0)) {
            for (int seq : new int[] {0, 1, 1, 0, 2, 3}) {
                relay(runId, seq, true, true);
            }
            assertThat(drain(subscription, 4)).containsExactly(0L, 1L, 2L, 3L);
            assertThat(subscription.next(Duration.ofMillis(700))).isEmpty();
        }
    }

    @Test
    void aGapOnTheLiveChannelIsFilledFromTheResumeBuffer() throws Exception {
        String runId = Ids.newRunId();
        try (RunSubscription subscription = live.subscribe(runId, 0)) {
            relay(runId, 0, true, true);
            relay(runId, 1, true, false); // buffered, but its live message was lost
            relay(runId, 2, true, false);
            relay(runId, 3, true, true);

            assertThat(drain(subscription, 4)).containsExactly(0L, 1L, 2L, 3L);
        }
    }

    @Test
    void aLostLastEventIsFoundWhenTheStreamGoesQuiet() throws Exception {
        String runId = Ids.newRunId();
        try (RunSubscription subscription = live.subscribe(runId, 0)) {
            relay(runId, 0, true, true);
            relay(runId, 1, true, false); // e.g. run_end published while the pub/sub connection reconnected

            assertThat(drain(subscription, 2)).containsExactly(0L, 1L);
        }
    }

    @Test
    void anEventThatIsNowhereIsSkippedAfterAWhileInsteadOfHangingTheStream() throws Exception {
        String runId = Ids.newRunId();
        try (RunSubscription subscription = live.subscribe(runId, 0)) {
            relay(runId, 0, true, true);
            relay(runId, 2, true, true); // seq 1 never reached the buffer (e.g. trimmed)
            relay(runId, 3, true, true);

            assertThat(drain(subscription, 3)).containsExactly(0L, 2L, 3L);
        }
    }

    @Test
    void aClientTooSlowForItsQueueIsFlaggedNotBuffered() throws Exception {
        String runId = Ids.newRunId();
        try (RunSubscription subscription = live.subscribe(runId, 0)) {
            for (int seq = 0; seq < 150; seq++) {
                relay(runId, seq, false, true);
            }
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(subscription::overflowed);
            assertThat(subscription.next(Duration.ofMillis(100))).as("an overflowed subscription hands out nothing more").isEmpty();
        }
    }

    @Test
    void oneLiveMessageCarriesSeveralEventsInOrderWithTheTraceparentOfTheOneItPrecedes() throws Exception {
        String runId = Ids.newRunId();
        String traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        try (RunSubscription subscription = live.subscribe(runId, 0)) {
            redis.sync().spublish(channel(),
                    traceparent + "\n" + envelope(runId, 0) + "\n" + envelope(runId, 1) + "\n" + envelope(runId, 2));
            redis.sync().spublish(channel(), envelope(runId, 3) + "\n" + envelope(runId, 2));

            List<Frame> frames = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                frames.add(subscription.next(Duration.ofSeconds(10)).orElseThrow());
            }
            assertThat(frames).extracting(Frame::seq).containsExactly(0L, 1L, 2L, 3L);
            assertThat(frames).extracting(Frame::traceparent).containsExactly(traceparent, null, null, null);
            assertThat(frames.get(1).json()).isEqualTo(envelope(runId, 1));
            assertThat(subscription.next(Duration.ofMillis(700))).as("the repeated seq 2 is dropped").isEmpty();
        }
    }

    @Test
    void theQueueIsBoundedInEventsNotMessages() throws Exception {
        String runId = Ids.newRunId();
        try (RunSubscription subscription = live.subscribe(runId, 0)) {
            // The queue holds 100 events (see connect); a message is taken whole when nothing waits.
            redis.sync().spublish(channel(), batch(runId, 0, 60));
            redis.sync().spublish(channel(), batch(runId, 60, 101));
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(subscription::overflowed);
        }
        try (RunSubscription subscription = live.subscribe(Ids.newRunId(), 0)) {
            String other = subscription.runId();
            redis.sync().spublish(channel(), batch(other, 0, 60));
            redis.sync().spublish(channel(), batch(other, 60, 100));
            assertThat(drain(subscription, 100)).as("exactly a full queue fits").hasSize(100);
            assertThat(subscription.overflowed()).isFalse();
        }
        try (RunSubscription subscription = live.subscribe(Ids.newRunId(), 0)) {
            String big = subscription.runId();
            redis.sync().spublish(channel(), batch(big, 0, 150));
            assertThat(drain(subscription, 150)).as("one message larger than the queue, taken whole into an empty queue").hasSize(150);
            assertThat(subscription.overflowed()).isFalse();
        }
    }

    @Test
    void twoWatchersOfOneRunBothGetEverythingAndClosingOneKeepsTheOther() throws Exception {
        String runId = Ids.newRunId();
        RunSubscription first = live.subscribe(runId, 0);
        try (RunSubscription second = live.subscribe(runId, 0)) {
            relay(runId, 0, true, true);
            assertThat(drain(first, 1)).containsExactly(0L);
            first.close();
            relay(runId, 1, true, true);
            assertThat(drain(second, 2)).containsExactly(0L, 1L);
        }
        assertThat(live.watchedRuns()).isZero();
    }

    @Test
    void oneMessageOfTheNodesChannelCarriesSeveralRunsAndEachWatcherGetsOnlyItsOwn() throws Exception {
        String a = Ids.newRunId();
        String b = Ids.newRunId();
        try (RunSubscription first = live.subscribeNew(a); RunSubscription second = live.subscribeNew(b)) {
            redis.sync().spublish(channel(), envelope(a, 0) + "\n" + envelope(b, 0) + "\n" + envelope(a, 1) + "\n"
                    + envelope(Ids.newRunId(), 0) + "\n" + envelope(b, 1));

            assertThat(drain(first, 2)).containsExactly(0L, 1L);
            assertThat(drain(second, 2)).containsExactly(0L, 1L);
            assertThat(first.next(Duration.ofMillis(400))).as("nothing of the other runs").isEmpty();
        }
    }

    @Test
    void aJoinNamesThisNodeAmongTheRunsWatchersAndANewRunDoesNot() {
        String joined = Ids.newRunId();
        String created = Ids.newRunId();
        try (RunSubscription join = live.subscribe(joined, 3); RunSubscription fresh = live.subscribeNew(created)) {
            assertThat(redis.sync().smembers(RedisKeys.runWatchers(joined))).containsExactly(live.nodeId());
            assertThat(redis.sync().pttl(RedisKeys.runWatchers(joined))).isBetween(1L, Duration.ofMinutes(5).toMillis());
            assertThat(redis.sync().exists(RedisKeys.runWatchers(created))).as("the run's record names its creator").isZero();
            assertThat(join.nextSeq()).isEqualTo(3);
        }
    }

    private static String channel() {
        return RedisKeys.nodeChannel(live.nodeId());
    }

    private static List<Long> drain(RunSubscription subscription, int count) throws InterruptedException {
        List<Long> seqs = new ArrayList<>();
        while (seqs.size() < count) {
            Optional<Frame> frame = subscription.next(Duration.ofSeconds(10));
            assertThat(frame).as("event %d of %d", seqs.size() + 1, count).isPresent();
            seqs.add(frame.get().seq());
        }
        return seqs;
    }

    /** One live message with the events {@code from} until {@code to} (exclusive). */
    private static String batch(String runId, int from, int to) {
        StringBuilder message = new StringBuilder();
        for (int seq = from; seq < to; seq++) {
            message.append(seq == from ? "" : "\n").append(envelope(runId, seq));
        }
        return message.toString();
    }

    private static String envelope(String runId, int seq) {
        return "{\"type\":\"message_delta\",\"seq\":" + seq + ",\"run_id\":\"" + runId + "\",\"data\":{\"delta\":\"x\"}}";
    }

    private static void relay(String runId, int seq, boolean buffer, boolean publish) {
        String json = envelope(runId, seq);
        if (buffer) {
            try {
                redis.sync().xadd(RedisKeys.runEvents(runId), new XAddArgs().id(seq + "-1"), java.util.Map.of("e", json));
            } catch (io.lettuce.core.RedisCommandExecutionException duplicate) {
                // the relay's replay of an event already buffered
            }
        }
        if (publish) {
            redis.sync().spublish(channel(), json);
        }
    }
}
