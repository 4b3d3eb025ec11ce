package io.agentrun.state.rebuild;

import io.agentrun.model.event.RunEvent;
import io.agentrun.model.json.CodecException;
import io.agentrun.model.thread.ThreadDeleted;
import io.agentrun.state.apply.DeletionRecords;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.TopicReaders;
import io.agentrun.platform.store.StateSettings;
import io.agentrun.state.apply.EventApplier;
import io.agentrun.state.apply.RelayedEvent;
import io.agentrun.platform.redis.RedisConnections.DedicatedConnection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * Rebuilds thread histories, run state and resume buffers in Redis from {@code agentrun.thread-events},
 * by feeding every record, partition by partition in order, through the relay's own {@link EventApplier}
 * — the same idempotent scripts, so running it twice, or over what Redis still has, changes nothing.
 *
 * <p>Who owns a thread or run (project, agent, creation time), which an api node writes first, the applier
 * restores from each {@code run_start} with {@code HSETNX}, so it never overwrites.
 * What is not in the event topic at all — projects, agents, API keys — is not rebuilt; it comes back from
 * its own source (the api nodes' bootstrap at start-up, or whoever created it).
 *
 * <p>The relays should be stopped meanwhile: a relay applying a thread's new event before the rebuild
 * reached that thread's older ones would make the thread script skip the older ones as already applied.
 */
public final class StateRebuilder {

    private static final Duration POLL = Duration.ofMillis(500);
    private static final Duration BATCH_TIMEOUT = Duration.ofSeconds(30);

    private final TopicReaders readers;
    private final DedicatedConnection connection;
    private final JsonCodec codec;
    private final StateSettings settings;

    /** @param connection dedicated to the rebuild: its pipeline order is the apply order */
    public StateRebuilder(TopicReaders readers, DedicatedConnection connection, JsonCodec codec,
            StateSettings settings) {
        this.readers = readers;
        this.connection = connection;
        this.codec = codec;
        this.settings = settings;
    }

    /** What a rebuild did. */
    public record Result(long records, long events, int threads, int runs, int partitions, long skipped, long deletedThreads,
            Duration took) {
    }

    /**
     * Applies every event from {@code from} (or the oldest kept) up to the topic's end as it was when the
     * rebuild began; {@code progress} hears about each partition as it is done.
     */
    public Result rebuild(@Nullable Instant from, Consumer<String> progress) {
        long began = System.nanoTime();
        EventApplier applier = new EventApplier(connection, codec, settings);
        Tally tally = new Tally();
        try (var consumer = readers.open("agentrun-rebuild-" + ProcessHandle.current().pid(), "earliest",
                Map.of(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 1000))) {
            List<TopicPartition> partitions = partitions(consumer);
            consumer.assign(partitions);
            Map<TopicPartition, Long> end = new HashMap<>(consumer.endOffsets(partitions));
            seekStart(consumer, partitions, from, end);
            while (!end.isEmpty()) {
                ConsumerRecords<String, byte[]> records = consumer.poll(POLL);
                apply(applier, records, end, tally);
                finished(consumer, end, progress);
            }
            return new Result(tally.records, tally.events, tally.threads.size(), tally.runs.size(), partitions.size(),
                    tally.skipped, tally.deletedThreads, Duration.ofNanos(System.nanoTime() - began));
        }
    }

    private List<TopicPartition> partitions(org.apache.kafka.clients.consumer.Consumer<String, byte[]> consumer) {
        String topic = readers.settings().eventsTopic();
        List<PartitionInfo> infos = consumer.partitionsFor(topic);
        if (infos == null || infos.isEmpty()) {
            throw new IllegalStateException("topic " + topic + " does not exist");
        }
        return infos.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
    }

    private static void seekStart(org.apache.kafka.clients.consumer.Consumer<String, byte[]> consumer, List<TopicPartition> partitions, @Nullable Instant from,
            Map<TopicPartition, Long> end) {
        if (from == null) {
            consumer.seekToBeginning(partitions);
            return;
        }
        Map<TopicPartition, Long> times = new HashMap<>();
        partitions.forEach(p -> times.put(p, from.toEpochMilli()));
        Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(times);
        for (TopicPartition partition : partitions) {
            OffsetAndTimestamp at = found.get(partition);
            consumer.seek(partition, at == null ? end.get(partition) : at.offset());
        }
    }

    /** One pipelined batch, in record order on this connection, awaited before the next poll. */
    private void apply(EventApplier applier, ConsumerRecords<String, byte[]> records, Map<TopicPartition, Long> end, Tally tally) {
        if (records.isEmpty()) {
            return;
        }
        List<CompletableFuture<?>> writes = new ArrayList<>();
        List<RelayedEvent> batch = new ArrayList<>(records.count());
        for (ConsumerRecord<String, byte[]> record : records) {
            Long stop = end.get(new TopicPartition(record.topic(), record.partition()));
            if (stop == null || record.offset() >= stop) {
                continue;
            }
            tally.records++;
            ThreadDeleted deleted = DeletionRecords.read(codec, record);
            if (deleted != null) {
                // Everything before it first, then the deletion: the thread's older events do not bring it back.
                writes.add(applier.apply(List.copyOf(batch)));
                batch.clear();
                await(writes);
                writes.clear();
                await(List.of(applier.applyDeletion(deleted)));
                tally.deletedThreads++;
                continue;
            }
            RunEvent event = decode(record, tally);
            if (event != null) {
                batch.add(RelayedEvent.of(event, new String(record.value(), java.nio.charset.StandardCharsets.UTF_8),
                        record.partition(), record.offset()));
                tally.count(event);
            }
        }
        writes.add(applier.apply(batch));
        await(writes);
    }

    private @Nullable RunEvent decode(ConsumerRecord<String, byte[]> record, Tally tally) {
        try {
            return codec.decodeEvent(record.value());
        } catch (CodecException e) {
            tally.skipped++;
            return null;
        }
    }

    private static void await(List<CompletableFuture<?>> writes) {
        try {
            CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).get(BATCH_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Redis did not take a batch; the rebuild stopped (running it again is safe)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static void finished(org.apache.kafka.clients.consumer.Consumer<String, byte[]> consumer, Map<TopicPartition, Long> end, Consumer<String> progress) {
        end.entrySet().removeIf(e -> {
            boolean done = consumer.position(e.getKey()) >= e.getValue();
            if (done) {
                progress.accept(e.getKey() + " done (up to offset " + e.getValue() + ")");
                consumer.pause(List.of(e.getKey()));
            }
            return done;
        });
    }

    private static final class Tally {
        long records;
        long events;
        long skipped;
        long deletedThreads;
        final Set<String> threads = new HashSet<>();
        final Set<String> runs = new HashSet<>();

        void count(RunEvent event) {
            events++;
            runs.add(event.runId());
            if (event.threadId() != null) {
                threads.add(event.threadId());
            }
        }
    }
}
