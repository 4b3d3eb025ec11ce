package io.agentrun.relay.consume;

import io.agentrun.model.json.CodecException;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.thread.ThreadDeleted;
import io.agentrun.platform.kafka.ClusterAdmin;
import io.agentrun.platform.kafka.ReplayableListener;
import io.agentrun.state.apply.DeletionRecords;
import io.agentrun.state.apply.EventApplier;
import io.agentrun.state.apply.RelayedEvent;
import io.lettuce.core.RedisNoScriptException;
import io.opentelemetry.api.trace.Span;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.listener.BatchConsumerAwareMessageListener;

/**
 * Applies each batch of {@code agentrun.thread-events} to Redis, in partition order, pipelined, then hands it to what
 * else reads the topic ({@link AfterApply}: webhook deliveries), so the topic is read once. It runs in a
 * spring-kafka container ({@link ConsumeConfiguration}): the container commits only batches this returned from, and hands a
 * batch it threw on back to it after a pause, so a batch Redis refused is applied again, never skipped (at-least-once
 * in; the scripts make a second application harmless).
 */
public final class EventRelay extends ReplayableListener implements BatchConsumerAwareMessageListener<String, byte[]> {

    private static final Logger log = LoggerFactory.getLogger(EventRelay.class);
    private static final Duration REDIS_BATCH_TIMEOUT = Duration.ofSeconds(10);

    private final JsonCodec codec;
    private final EventApplier applier;
    private final RelayTelemetry telemetry;
    private final List<AfterApply> afterApply;
    private final LongAdder failedBatches = new LongAdder();
    private volatile long lag;

    EventRelay(ClusterAdmin cluster, JsonCodec codec, EventApplier applier, RelayTelemetry telemetry, List<AfterApply> afterApply) {
        super(cluster);
        this.afterApply = List.copyOf(afterApply);
        this.codec = codec;
        this.applier = applier;
        this.telemetry = telemetry;
    }

    @Override
    public void onMessage(List<ConsumerRecord<String, byte[]>> records, Consumer<?, ?> consumer) {
        boolean applied = false;
        try {
            relay(records);
            applied = true;
        } catch (RuntimeException e) {
            failedBatches.increment();
            throw e;
        } finally {
            // Also while Redis refuses batches, so the gauge grows during an outage; a refused batch is handed back
            // after this (the consumer's position is past it still), so its records count as not applied.
            lag = currentLag(consumer) + (applied ? 0 : records.size());
        }
    }

    /** Batches Redis refused (each is applied again). */
    public long failedBatches() {
        return failedBatches.sum();
    }

    /** Records in this relay's partitions not yet applied, as of its last batch (applied or refused). */
    public long lag() {
        return lag;
    }

    private void relay(List<ConsumerRecord<String, byte[]>> records) {
        List<Step> steps = new ArrayList<>();
        List<RelayedEvent> batch = new ArrayList<>(records.size());
        // The record's timestamp is the worker's send time, within a millisecond of the event's created_at.
        long[] sentAt = new long[records.size()];
        int events = 0;
        List<Span> spans = new ArrayList<>(0);
        for (ConsumerRecord<String, byte[]> record : records) {
            ThreadDeleted deleted = DeletionRecords.read(codec, record);
            if (deleted != null) {
                // A thread's deletion splits the batch: what came before it is applied first, what follows after it.
                steps.add(new Step(List.copyOf(batch), deleted));
                batch.clear();
                continue;
            }
            RelayedEvent event = read(record);
            if (event != null) {
                Span span = telemetry.applying(record, event);
                if (span != null) {
                    spans.add(span);
                    event = event.traced(RelayTelemetry.traceparent(span));
                }
                sentAt[events++] = record.timestamp();
                batch.add(event);
            }
        }
        steps.add(new Step(batch, null));
        boolean applied = false;
        try {
            applyOrRetryOnce(steps, records.size());
            List<RelayedEvent> all = steps.size() == 1 ? batch : steps.stream().flatMap(step -> step.events().stream()).toList();
            afterApply.forEach(next -> next.applied(all));
            applied = true;
            telemetry.applied(sentAt, events);
        } finally {
            RelayTelemetry.ended(spans, applied);
        }
    }

    private @Nullable RelayedEvent read(ConsumerRecord<String, byte[]> record) {
        try {
            return RelayedEvent.read(codec, record.value(), record.partition(), record.offset());
        } catch (CodecException e) {
            log.error("skipping record {}-{}@{}: not an event ({})", record.topic(), record.partition(), record.offset(), e.getMessage());
            return null;
        }
    }

    /**
     * A Redis that restarted forgot the scripts: the applier loads them ahead of its next call, so the batch is
     * applied again at once rather than after the container's pause.
     */
    private void applyOrRetryOnce(List<Step> steps, int records) {
        try {
            apply(steps, records);
        } catch (ExecutionException | TimeoutException e) {
            if (!isMissingScript(e)) {
                throw refused(records, e);
            }
            log.info("Redis did not know the relay's scripts (restarted?); loading them and applying the batch again");
            try {
                apply(steps, records);
            } catch (ExecutionException | TimeoutException again) {
                throw refused(records, again);
            }
        }
    }

    private static RedisRefusedBatch refused(int records, Exception cause) {
        RedisRefusedBatch refused = new RedisRefusedBatch(records, cause);
        log.error(refused.getMessage(), cause);
        return refused;
    }

    private void apply(List<Step> steps, int records) throws ExecutionException, TimeoutException {
        CompletableFuture<?> chain = CompletableFuture.completedFuture(null);
        for (Step step : steps) {
            chain = chain.thenCompose(done -> applier.apply(step.events()));
            if (step.deletion() != null) {
                ThreadDeleted deletion = step.deletion();
                chain = chain.thenCompose(done -> applier.applyDeletion(deletion));
            }
        }
        try {
            chain.get(REDIS_BATCH_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisRefusedBatch(records, e);
        }
    }

    private static boolean isMissingScript(Exception e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof RedisNoScriptException) {
                return true;
            }
        }
        return false;
    }

    /** From the consumer's own fetch positions: no request to the broker. */
    private static long currentLag(Consumer<?, ?> consumer) {
        long sum = 0;
        for (TopicPartition partition : consumer.assignment()) {
            sum += consumer.currentLag(partition).orElse(0);
        }
        return sum;
    }

    /** Events applied in order, then (when the batch held one) a thread's deletion. */
    private record Step(List<RelayedEvent> events, @Nullable ThreadDeleted deletion) {
    }

    /** Redis did not take a batch in time, or refused it; the container hands the batch back after a pause. */
    static final class RedisRefusedBatch extends RuntimeException {
        RedisRefusedBatch(int records, Exception cause) {
            super("Redis did not take a batch of " + records + " records; it is applied again after a pause", cause);
        }
    }
}
