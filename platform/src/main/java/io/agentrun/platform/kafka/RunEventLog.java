package io.agentrun.platform.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;

/**
 * Reads one run's events back from {@code agentrun.thread-events} — the record of what happened when
 * Redis no longer has it: a worker continuing a crashed attempt needs the last seq written, a client
 * joining after the resume buffer expired needs the backlog. A run's events are on the partition of its
 * key; the read starts at the run's recorded {@code run_start} offset, or at the first offset at or after a
 * time, and stops at the partition's end as it was when the read began. A read that cannot get there fails
 * rather than return part of the record as if it were all of it.
 */
public final class RunEventLog {

    private static final Duration POLL = Duration.ofMillis(200);
    private static final Duration READ_LIMIT = Duration.ofSeconds(30);

    private final TopicReaders readers;

    public RunEventLog(TopicReaders readers) {
        this.readers = readers;
    }

    /** Where to start reading: a known offset, or else a time (the run's creation, with margin). */
    public record From(long offset, Instant notBefore) {
        public static From offset(long offset, Instant notBefore) {
            return new From(offset, notBefore);
        }
    }

    /**
     * The raw envelopes on the key's partition from {@code from} to the current end for which
     * {@code keep} holds on the record, in partition order.
     */
    public List<String> read(String key, From from, Predicate<String> keep) {
        return read(key, from, keep, Integer.MAX_VALUE);
    }

    /** As {@link #read(String, From, Predicate)}, stopping after {@code limit} envelopes. */
    public List<String> read(String key, From from, Predicate<String> keep, int limit) {
        String topic = readers.settings().eventsTopic();
        // A start offset retention already deleted means "from the oldest kept", never silently "from the end". Kafka's
        // default 60 s for a metadata or offset answer, not the operators' 15 s: on the run path a leader election is
        // waited out rather than turned into a failed join or attempt.
        try (Consumer<String, byte[]> consumer = readers.open("agentrun-event-log-" + ProcessHandle.current().pid(), "earliest",
                Map.of(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000, ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60_000))) {
            int partitions = consumer.partitionsFor(topic).size();
            TopicPartition partition = new TopicPartition(topic, partitionOf(key, partitions));
            consumer.assign(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            long start = from.offset() >= 0 ? from.offset() : offsetAt(consumer, partition, from.notBefore(), end);
            consumer.seek(partition, start);
            List<String> found = new ArrayList<>();
            long deadline = System.nanoTime() + READ_LIMIT.toNanos();
            while (consumer.position(partition) < end && found.size() < limit && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(POLL)) {
                    if (record.offset() >= end) {
                        break;
                    }
                    if (key.equals(record.key())) {
                        String json = new String(record.value(), StandardCharsets.UTF_8);
                        if (keep.test(json) && found.size() < limit) {
                            found.add(json);
                        }
                    }
                }
            }
            if (found.size() < limit && consumer.position(partition) < end) {
                throw new IllegalStateException("reading " + partition + " up to offset " + end + " took longer than " + READ_LIMIT);
            }
            return found;
        }
    }

    /** The default partitioner's choice for a key (murmur2), so readers find what producers wrote. */
    public static int partitionOf(String key, int partitions) {
        return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
    }

    private static long offsetAt(Consumer<String, byte[]> consumer, TopicPartition partition, Instant time, long end) {
        OffsetAndTimestamp found = consumer.offsetsForTimes(Map.of(partition, time.toEpochMilli())).get(partition);
        return found == null ? end : found.offset();
    }
}
