package io.agentrun.replay;

import io.agentrun.model.json.CodecException;
import io.agentrun.model.event.EpochFence;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.thread.ThreadDeleted;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.kafka.TopicReaders;
import io.agentrun.platform.kafka.RunEventLog;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.RunState;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.StateSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replays one thread's events from {@code agentrun.thread-events}, in partition order. The thread is on
 * the partition of its key; the read starts past the query's {@code after} offset when it names one, else at
 * the run index in Redis when it has one (a run's first {@code run_start} offset), else at the first offset at or after a time ({@code offsetsForTimes}: the
 * query's {@code from}, or the thread's creation), else at the oldest record kept. Without {@code follow}
 * it stops at the partition's end as it was when the read began.
 *
 * <p>A seq a run already showed is not shown again (a producer retry can write an event twice; an api
 * node drops those the same way), so the {@code sse} rendering equals what a client received.
 */
public final class ThreadEventReader {

    private static final Logger log = LoggerFactory.getLogger(ThreadEventReader.class);
    private static final Duration POLL = Duration.ofMillis(200);
    /** Records' timestamps come from producer clocks; seek a little earlier than asked. */
    private static final Duration CLOCK_MARGIN = Duration.ofMinutes(1);

    private final TopicReaders readers;
    private final @Nullable RedisConnections redis;
    private final JsonCodec codec;

    /** @param redis the run index; {@code null} to find positions by time only (Redis down or wiped) */
    public ThreadEventReader(TopicReaders readers, @Nullable RedisConnections redis, JsonCodec codec) {
        this.readers = readers;
        this.redis = redis;
        this.codec = codec;
    }

    /**
     * What a replay showed.
     *
     * @param deleted the thread's deletion, when the topic holds one: then nothing of the thread is shown
     *     (following, what was shown before the deletion came stays shown)
     */
    public record Replay(long events, @Nullable ThreadDeleted deleted) {
    }

    /**
     * Hands the query's events to {@code sink} in order until the end (or, following, until
     * {@code keepGoing} turns false — checked between polls). A thread deleted since shows nothing: its
     * deletion's record follows all of its events, so without following the events are held until the end
     * of the partition is reached.
     */
    public Replay replay(ReplayQuery query, Consumer<ReplayedEvent> sink, BooleanSupplier keepGoing) {
        String topic = readers.settings().eventsTopic();
        try (var consumer = readers.open("agentrun-replay-" + ProcessHandle.current().pid(), "earliest")) {
            TopicPartition partition = new TopicPartition(topic,
                    RunEventLog.partitionOf(query.threadId(), consumer.partitionsFor(topic).size()));
            consumer.assign(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            consumer.seek(partition, startOffset(consumer, partition, query));
            EpochFence.Tracker shown = new EpochFence.Tracker(); // a seq shown before, or of a fenced epoch, is not shown
            List<ReplayedEvent> held = new ArrayList<>();
            Consumer<ReplayedEvent> out = query.follow() ? sink : held::add;
            long count = 0;
            while (query.follow() ? keepGoing.getAsBoolean() : consumer.position(partition) < end) {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(POLL)) {
                    if (!query.follow() && record.offset() >= end) {
                        break;
                    }
                    ThreadDeleted deleted = deletionOf(record, query.threadId());
                    if (deleted != null) {
                        return new Replay(query.follow() ? count : 0, deleted);
                    }
                    ReplayedEvent event = decode(record, query.threadId());
                    if (event != null && query.admits(event) && shown.admit(event.event().runId(), event.event())) {
                        out.accept(event);
                        count++;
                    }
                }
            }
            held.forEach(sink);
            return new Replay(count, null);
        }
    }

    private @Nullable ThreadDeleted deletionOf(ConsumerRecord<String, byte[]> record, String threadId) {
        Header kind = record.headers().lastHeader(ThreadDeleted.KIND_HEADER);
        if (!threadId.equals(record.key()) || kind == null || !ThreadDeleted.KIND.equals(new String(kind.value(), StandardCharsets.UTF_8))) {
            return null;
        }
        return codec.read(record.value(), ThreadDeleted.class);
    }

    private @Nullable ReplayedEvent decode(ConsumerRecord<String, byte[]> record, String threadId) {
        if (!threadId.equals(record.key())) {
            return null;
        }
        try {
            return new ReplayedEvent(record.partition(), record.offset(),
                    new String(record.value(), StandardCharsets.UTF_8), codec.decodeEvent(record.value()));
        } catch (CodecException e) {
            log.warn("skipping record {}@{}: not an event ({})", record.partition(), record.offset(), e.getMessage());
            return null;
        }
    }

    private long startOffset(org.apache.kafka.clients.consumer.Consumer<String, byte[]> consumer, TopicPartition partition, ReplayQuery query) {
        if (query.after() >= 0) {
            return query.after() + 1;
        }
        Optional<Long> indexed = query.runId() == null || query.from() != null ? Optional.empty() : indexedStart(query.runId(), partition);
        if (indexed.isPresent()) {
            return indexed.get();
        }
        Instant notBefore = query.from() != null ? query.from() : threadCreated(query.threadId());
        if (notBefore == null) {
            return consumer.beginningOffsets(List.of(partition)).get(partition);
        }
        OffsetAndTimestamp found = consumer.offsetsForTimes(Map.of(partition, notBefore.minus(CLOCK_MARGIN).toEpochMilli())).get(partition);
        return found == null ? consumer.endOffsets(List.of(partition)).get(partition) : found.offset();
    }

    /** The run's first run_start offset from the run index, when Redis has it for this partition. */
    private Optional<Long> indexedStart(String runId, TopicPartition partition) {
        if (redis == null) {
            return Optional.empty();
        }
        try {
            Optional<RunState> state = new RunStore(redis, NO_RETENTION).find(runId);
            return state.filter(s -> s.startPartition() == partition.partition() && s.firstOffset() >= 0).map(RunState::firstOffset);
        } catch (RuntimeException e) {
            log.warn("run index unavailable ({}); seeking by time", e.getMessage());
            return Optional.empty();
        }
    }

    private @Nullable Instant threadCreated(String threadId) {
        if (redis == null) {
            return null;
        }
        try {
            String created = redis.sync().hget(RedisKeys.thread(threadId), "created_at");
            return created == null ? null : Instant.parse(created);
        } catch (RuntimeException e) {
            log.warn("thread index unavailable ({}); reading the partition from its oldest record", e.getMessage());
            return null;
        }
    }

    /** Only reads are done through this store, which never look at retention. */
    private static final StateSettings NO_RETENTION = new StateSettings(Duration.ZERO, Duration.ZERO, Duration.ZERO, Duration.ZERO, 0, Duration.ZERO);
}
