package io.agentrun.platform.kafka;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.listener.AbstractConsumerSeekAware;

/**
 * A listener, on a spring-kafka container, that can be asked to read its partitions again from a point in time: for
 * listeners whose every step is idempotent and whose results live in Redis. When a Redis Cluster failover drops writes
 * it had acknowledged, the topic still holds what made them.
 *
 * <p>The container carries out the seek on its consumer thread between two batches. A partition goes back to its first
 * record at or after the asked time, never forward: a listener that lags (its position is older than that time) reads
 * on from where it is, so no record is skipped. Offsets the container had not committed yet may still be committed
 * after the seek (its pending acknowledgements are its own); a listener that dies in that window, within one commit
 * interval of the replay, leaves its successor reading on after them (docs/reliability.md).
 */
public abstract class ReplayableListener extends AbstractConsumerSeekAware {

    private static final Logger log = LoggerFactory.getLogger(ReplayableListener.class);

    private final ClusterAdmin cluster;
    private final LongAdder replays = new LongAdder();
    /** A topology-change replay is being asked for; the changes that come meanwhile (a failover fires several) join it. */
    private final AtomicBoolean replayPending = new AtomicBoolean();

    protected ReplayableListener(ClusterAdmin cluster) {
        this.cluster = cluster;
    }

    /**
     * Asks the container to re-read every partition assigned now from {@code since} on. Blocks for one admin request
     * (where each partition's records at {@code since} start); call it off latency-sensitive threads.
     *
     * @return how many partitions were asked to go back
     */
    public int replaySince(Instant since) {
        Map<TopicPartition, List<ConsumerSeekCallback>> assigned = getTopicsAndCallbacks();
        if (assigned.isEmpty()) {
            return 0;
        }
        Map<TopicPartition, Long> from = cluster.offsetsAt(assigned.keySet(), since);
        from.forEach((partition, offset) -> assigned.getOrDefault(partition, List.of()).forEach(callback ->
                callback.seek(partition.topic(), partition.partition(), position -> replayFrom(position, offset))));
        replays.increment();
        return from.size();
    }

    /**
     * {@link #replaySince} {@code back} before now, on a virtual thread of its own: for callbacks that must not block,
     * like a Redis client's topology events. A replay that fails is logged; the next topology change asks again.
     *
     * <p>Changes that come while a replay is still being asked for join it instead of reading the topic again each:
     * the pending replay goes back further than theirs would (its time is earlier), and the container seeks only after
     * it was asked, so it re-applies what their failover may have dropped too.
     */
    public void replayAfterTopologyChange(Duration back) {
        if (!replayPending.compareAndSet(false, true)) {
            return;
        }
        Instant since = Instant.now().minus(back);
        Thread.ofVirtual().name("replay").start(() -> {
            try {
                int partitions = replaySince(since);
                log.warn("Redis's topology changed (a failover may have lost acknowledged writes): reading {} partitions again from {}",
                        partitions, since);
            } catch (RuntimeException e) {
                log.error("Redis's topology changed, but the topic could not be read again from {}", since, e);
            } finally {
                replayPending.set(false);
            }
        });
    }

    /** Whether a topology-change replay is being asked for now (changes that come meanwhile join it). */
    boolean replayPending() {
        return replayPending.get();
    }

    /** Replays asked ({@link #replaySince}). */
    public long replays() {
        return replays.sum();
    }

    /**
     * Where a partition at {@code position} goes for a replay whose first record is at {@code firstAtTime}: back
     * to it, or nowhere when the partition is there already or has no record that recent ({@code -1}).
     */
    static long replayFrom(long position, long firstAtTime) {
        return firstAtTime < 0 ? position : Math.min(position, firstAtTime);
    }
}
