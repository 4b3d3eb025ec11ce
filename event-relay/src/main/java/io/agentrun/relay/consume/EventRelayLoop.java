package io.agentrun.relay.consume;

import io.agentrun.model.json.CodecException;
import io.agentrun.model.thread.ThreadDeleted;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.KafkaClients;
import io.agentrun.state.apply.DeletionRecords;
import io.agentrun.state.apply.EventApplier;
import io.agentrun.state.apply.RelayedEvent;
import io.agentrun.platform.kafka.PartitionRewind;
import io.lettuce.core.RedisNoScriptException;
import io.opentelemetry.api.trace.Span;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Consumes {@code agentrun.thread-events} in the relay consumer group and applies each batch to Redis
 * in partition order, pipelined. Offsets are committed only after Redis acknowledged the whole batch;
 * when Redis fails, the batch is read again (at-least-once in, and the scripts make replays harmless).
 */
public final class EventRelayLoop implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(EventRelayLoop.class);
    private static final Duration REDIS_BATCH_TIMEOUT = Duration.ofSeconds(10);

    private final KafkaClients clients;
    private final JsonCodec codec;
    private final EventApplier applier;
    private final RelaySettings settings;

    private final LongAdder failedBatches = new LongAdder();
    private final RelayTelemetry telemetry;
    private volatile long lag;

    private volatile boolean stopping;
    private volatile boolean running;
    private volatile KafkaConsumer<String, byte[]> consumer;
    private Thread loop;
    /** Offsets applied in Redis and not yet committed; touched by the loop's thread only. */
    private final Map<TopicPartition, OffsetAndMetadata> uncommitted = new HashMap<>();
    private long lastCommit = System.nanoTime();
    /** Where to re-apply the topic from, asked for by {@link #replaySince}. */
    private final PartitionRewind replay = new PartitionRewind();
    private final LongAdder replays = new LongAdder();

    public EventRelayLoop(KafkaClients clients, JsonCodec codec, EventApplier applier, RelaySettings settings) {
        this(clients, codec, applier, settings, RelayTelemetry.NONE);
    }

    public EventRelayLoop(KafkaClients clients, JsonCodec codec, EventApplier applier, RelaySettings settings, RelayTelemetry telemetry) {
        this.telemetry = telemetry;
        this.clients = clients;
        this.codec = codec;
        this.applier = applier;
        this.settings = settings;
    }

    @Override
    public void start() {
        Map<String, Object> config = clients.consumer(settings.id(), clients.settings().relayGroup());
        config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, settings.maxPollRecords());
        consumer = new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer());
        consumer.subscribe(List.of(clients.settings().eventsTopic()), new CommitOnRevoke());
        stopping = false;
        running = true;
        loop = Thread.ofPlatform().name("event-relay").start(this::runLoop);
    }

    @Override
    public void stop() {
        stopping = true;
        consumer.wakeup();
        try {
            loop.join(Duration.ofSeconds(30).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Batches Redis refused (each is read again). */
    public long failedBatches() {
        return failedBatches.sum();
    }

    /** Records in this relay's partitions not yet applied, as of its last poll. */
    public long lag() {
        return lag;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /**
     * Asks the loop to re-apply its partitions from {@code since} on, between two batches: Redis lost writes it had
     * acknowledged (a Redis Cluster failover), and the topic holds them. Every step is idempotent, so what Redis kept is
     * recognised as applied before; what it lost is applied (and published) again. Thread-safe; asks made before the
     * loop acts are merged (the earliest wins).
     */
    public void replaySince(Instant since) {
        replay.ask(since);
    }

    /** Replays done ({@link #replaySince}). */
    public long replays() {
        return replays.sum();
    }

    private void runLoop() {
        try {
            while (!stopping) {
                try {
                    replayIfAsked();
                    ConsumerRecords<String, byte[]> records = poll();
                    if (!records.isEmpty()) {
                        relayOrRewind(records);
                    } else {
                        commitWhenDue();
                    }
                    lag = currentLag();
                } catch (RuntimeException e) {
                    // Never end the loop: the process would stay UP holding its partitions while applying nothing,
                    // and every stream of those partitions would stall. What failed is read again after a pause.
                    log.error("event relay loop failed; reading on from the last applied record in {}", settings.retryBackoff(), e);
                    pause(settings.retryBackoff());
                }
            }
        } finally {
            commitApplied();
            consumer.close(Duration.ofSeconds(10));
            running = false;
        }
    }

    private ConsumerRecords<String, byte[]> poll() {
        try {
            return consumer.poll(settings.pollTimeout());
        } catch (WakeupException e) {
            return ConsumerRecords.empty();
        }
    }

    /** Relays a batch; should anything throw on the way, the batch is read again rather than skipped. */
    private void relayOrRewind(ConsumerRecords<String, byte[]> records) {
        try {
            relay(records);
        } catch (RuntimeException e) {
            failedBatches.increment();
            rewind(records);
            throw e;
        }
    }

    private void relay(ConsumerRecords<String, byte[]> records) {
        List<RelayedEvent> batch = new ArrayList<>(records.count());
        // The record's timestamp is the worker's send time, within a millisecond of the event's created_at.
        long[] sentAt = new long[records.count()];
        List<Span> spans = new ArrayList<>(0);
        // A thread's deletion splits the batch: what came before it is applied first, what follows after it.
        CompletableFuture<?> earlier = CompletableFuture.completedFuture(null);
        for (ConsumerRecord<String, byte[]> record : records) {
            ThreadDeleted deleted = DeletionRecords.read(codec, record);
            if (deleted != null) {
                List<RelayedEvent> before = List.copyOf(batch);
                batch.clear();
                earlier = earlier.thenCompose(done -> applier.apply(before)).thenCompose(done -> applier.applyDeletion(deleted));
                continue;
            }
            try {
                RelayedEvent event = RelayedEvent.read(codec, record.value(), record.partition(), record.offset());
                Span span = telemetry.applying(record, event);
                if (span != null) {
                    spans.add(span);
                    event = event.traced(RelayTelemetry.traceparent(span));
                }
                sentAt[batch.size()] = record.timestamp();
                batch.add(event);
            } catch (CodecException e) {
                log.error("skipping record {}-{}@{}: not an event ({})", record.topic(), record.partition(), record.offset(), e.getMessage());
            }
        }
        try {
            earlier.thenCompose(done -> applier.apply(batch)).get(REDIS_BATCH_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            telemetry.applied(sentAt, batch.size());
            RelayTelemetry.ended(spans, true);
            applied(records);
        } catch (ExecutionException | TimeoutException e) {
            failedBatches.increment();
            RelayTelemetry.ended(spans, false);
            rewind(records);
            if (isMissingScript(e)) {
                // Redis restarted and forgot the scripts: the applier loads them ahead of the next batch.
                log.info("Redis did not know the relay's scripts (restarted?); loading them and applying the batch again");
            } else {
                log.error("Redis did not take a batch of {} events; reading it again", records.count(), e);
                pause(settings.retryBackoff());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            RelayTelemetry.ended(spans, false);
            rewind(records);
        }
    }

    /** Carries out a {@link #replaySince} between two batches; offsets applied but not committed are dropped. */
    private void replayIfAsked() {
        if (!replay.isAsked()) {
            return;
        }
        uncommitted.clear();
        Map<TopicPartition, OffsetAndMetadata> back = replay.applyIfAsked(consumer);
        replays.increment();
        log.warn("Redis's topology changed (a failover may have lost acknowledged writes): re-applying {} partitions", back.size());
    }

    private static boolean isMissingScript(Exception e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof RedisNoScriptException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Remembers a batch Redis applied and commits what was applied once per {@code commit-interval}, not per
     * batch: a commit per batch was a broker request per poll. A relay that dies re-applies at most that
     * interval's events, which the scripts recognise as applied before.
     */
    private void applied(ConsumerRecords<String, byte[]> records) {
        uncommitted.putAll(nextOffsets(records));
        commitWhenDue();
    }

    private void commitWhenDue() {
        long now = System.nanoTime();
        if (uncommitted.isEmpty() || now - lastCommit < settings.commitInterval().toNanos()) {
            return;
        }
        lastCommit = now;
        consumer.commitAsync(new HashMap<>(uncommitted), (offsets, error) -> {
            if (error != null) {
                log.warn("offset commit failed ({}); events may be applied again, harmlessly", error.getMessage());
            }
        });
        uncommitted.clear();
    }

    /** From the consumer's own fetch positions: no request to the broker. */
    private long currentLag() {
        long sum = 0;
        for (TopicPartition partition : consumer.assignment()) {
            sum += consumer.currentLag(partition).orElse(0);
        }
        return sum;
    }

    private static Map<TopicPartition, OffsetAndMetadata> nextOffsets(ConsumerRecords<String, byte[]> records) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (TopicPartition partition : records.partitions()) {
            List<ConsumerRecord<String, byte[]>> of = records.records(partition);
            offsets.put(partition, new OffsetAndMetadata(of.get(of.size() - 1).offset() + 1));
        }
        return offsets;
    }

    private void rewind(ConsumerRecords<String, byte[]> records) {
        for (TopicPartition partition : records.partitions()) {
            consumer.seek(partition, records.records(partition).get(0).offset());
        }
    }

    private static void pause(Duration backoff) {
        try {
            Thread.sleep(backoff.toMillis()); // back-off before retrying Redis, not synchronisation
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Commits what was applied, synchronously: before partitions move to another relay, and on the way out. */
    private void commitApplied() {
        if (uncommitted.isEmpty()) {
            return;
        }
        try {
            consumer.commitSync(new HashMap<>(uncommitted));
            uncommitted.clear();
        } catch (RuntimeException e) {
            log.warn("commit failed ({}); the next owner re-applies from the last commit, harmlessly", e.getMessage());
        }
    }

    /** Flushes pending commits before partitions move to another relay, so it re-applies little. */
    private final class CommitOnRevoke implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            commitApplied();
            uncommitted.keySet().removeAll(partitions); // no longer this relay's to commit, whatever the outcome
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            log.info("relaying partitions {}", partitions);
        }
    }
}
