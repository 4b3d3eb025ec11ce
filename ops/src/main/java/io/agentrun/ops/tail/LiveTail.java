package io.agentrun.ops.tail;

import io.agentrun.model.json.CodecException;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.TopicReaders;
import io.agentrun.replay.ReplayedEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * Live events across all threads: every partition of the event topic from its end (or from a time),
 * without a consumer group — a tail commits nothing and takes no partitions away from the relays.
 */
public final class LiveTail {

    private static final Duration POLL = Duration.ofMillis(500);

    private final TopicReaders readers;
    private final JsonCodec codec;

    public LiveTail(TopicReaders readers, JsonCodec codec) {
        this.readers = readers;
        this.codec = codec;
    }

    /** Which events to show; a {@code null} field matches everything. */
    public record Filter(@Nullable String projectId, @Nullable String agentId, @Nullable String type) {
        boolean admits(ReplayedEvent e) {
            return (projectId == null || projectId.equals(e.event().projectId()))
                    && (agentId == null || agentId.equals(e.event().agentId()))
                    && (type == null || type.equals(e.event().type().wireName()));
        }
    }

    /**
     * Hands matching events to {@code sink} until {@code keepGoing} turns false (checked between polls);
     * {@code positioned} runs once the start positions are fixed (events written after it are shown).
     */
    public void follow(Filter filter, @Nullable Instant from, Consumer<ReplayedEvent> sink, BooleanSupplier keepGoing,
            Runnable positioned) {
        String topic = readers.settings().eventsTopic();
        try (var consumer = readers.open("agentrun-tail-" + ProcessHandle.current().pid(), "latest")) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            seek(consumer, partitions, from);
            positioned.run();
            while (keepGoing.getAsBoolean()) {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(POLL)) {
                    ReplayedEvent event = decode(record);
                    if (event != null && filter.admits(event)) {
                        sink.accept(event);
                    }
                }
            }
        }
    }

    private static void seek(org.apache.kafka.clients.consumer.Consumer<String, byte[]> consumer, List<TopicPartition> partitions, @Nullable Instant from) {
        if (from == null) {
            consumer.seekToEnd(partitions);
            partitions.forEach(consumer::position); // fix "the end" now, not at the first poll
            return;
        }
        Map<TopicPartition, Long> times = new HashMap<>();
        partitions.forEach(p -> times.put(p, from.toEpochMilli()));
        Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(times);
        Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
        partitions.forEach(p -> consumer.seek(p, found.get(p) == null ? ends.get(p) : found.get(p).offset()));
    }

    private @Nullable ReplayedEvent decode(ConsumerRecord<String, byte[]> record) {
        try {
            return new ReplayedEvent(record.partition(), record.offset(),
                    new String(record.value(), java.nio.charset.StandardCharsets.UTF_8), codec.decodeEvent(record.value()));
        } catch (CodecException e) {
            return null;
        }
    }
}
