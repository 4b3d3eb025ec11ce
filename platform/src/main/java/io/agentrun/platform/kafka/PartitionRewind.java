package io.agentrun.platform.kafka;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * A consumer's request to read its partitions again from a point in time, asked from any thread and carried out by
 * the consumer's own thread between two batches. For consumers whose every step is idempotent and whose results live
 * in Redis: when a Redis Cluster failover drops writes it had acknowledged, the topic still holds what made them.
 */
public final class PartitionRewind {

    /** Epoch millis to read again from; -1 when nothing is asked. */
    private final AtomicLong from = new AtomicLong(-1);

    /** Asks for a rewind to {@code since}; asks made before the consumer acts are merged (the earliest wins). */
    public void ask(Instant since) {
        long millis = since.toEpochMilli();
        from.accumulateAndGet(millis, (asked, next) -> asked < 0 ? next : Math.min(asked, next));
    }

    /** Whether a rewind waits to be carried out. */
    public boolean isAsked() {
        return from.get() >= 0;
    }

    /**
     * On the consumer's thread: seeks every assigned partition back to its first record at or after the asked time
     * and commits those positions before anything is read again, so a consumer that dies meanwhile leaves its
     * successor to read them again too.
     *
     * @return the partitions moved back and their new positions; empty when nothing was asked or nothing moved
     */
    public Map<TopicPartition, OffsetAndMetadata> applyIfAsked(Consumer<?, ?> consumer) {
        long since = from.getAndSet(-1);
        if (since < 0 || consumer.assignment().isEmpty()) {
            return Map.of();
        }
        Map<TopicPartition, Long> asked = new HashMap<>();
        consumer.assignment().forEach(partition -> asked.put(partition, since));
        Map<TopicPartition, OffsetAndMetadata> back = new HashMap<>();
        consumer.offsetsForTimes(asked, Duration.ofSeconds(10)).forEach((partition, found) -> {
            if (found != null && found.offset() < consumer.position(partition)) {
                back.put(partition, new OffsetAndMetadata(found.offset()));
            }
        });
        back.forEach((partition, offset) -> consumer.seek(partition, offset.offset()));
        consumer.commitSync(back);
        return back;
    }
}
