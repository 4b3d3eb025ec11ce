package io.agentrun.worker.emit;

import io.agentrun.model.command.RunCommand;
import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import io.agentrun.platform.observe.Tracing;
import io.opentelemetry.context.Context;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.jspecify.annotations.Nullable;

/**
 * The events of one run attempt: numbers them ({@code seq}), stamps them, and sends them without
 * waiting — only {@link #awaitDelivered} waits, once, for all of them. Used from the run's thread only.
 */
public final class RunEmitter implements EventSink {

    private final EventPublisher publisher;
    private final RunCommand command;
    private final int epoch;
    private final Clock clock;
    private long nextSeq;
    private final AtomicReference<Throwable> firstFailure = new AtomicReference<>();
    private CompletableFuture<RecordMetadata> lastSent = CompletableFuture.completedFuture(null);

    /** The trace context current where the run's emitter is made (the run's span): every event's header. */
    private final byte @Nullable [] traceparent = Tracing.traceparent(Context.current());

    /**
     * @param epoch    the epoch of this worker's claim of the run: every event carries it, and the relay fences
     *                 events of an epoch that is no longer the run's
     * @param firstSeq the seq of this attempt's run_start: the claim's fence (what earlier attempts' events the
     *                 relay applied) plus one
     */
    public RunEmitter(EventPublisher publisher, RunCommand command, int epoch, long firstSeq, Clock clock) {
        this.publisher = publisher;
        this.command = command;
        this.epoch = epoch;
        this.nextSeq = firstSeq;
        this.clock = clock;
    }

    /** @throws EmitFailedException once an earlier event could not be written: nothing may follow a hole */
    @Override
    public void emit(EventData data) {
        Throwable failed = firstFailure.get();
        if (failed != null) {
            throw new EmitFailedException("events of " + command.runId() + " could not be written to Kafka", failed);
        }
        RunEvent event = new RunEvent(nextSeq++, epoch, command.runId(), command.threadId(), command.projectId(),
                command.agentId(), Instant.now(clock).truncatedTo(ChronoUnit.MILLIS), data);
        lastSent = publisher.publish(event, traceparent);
        lastSent.whenComplete((ok, error) -> {
            if (error != null) {
                firstFailure.compareAndSet(null, error);
            }
        });
    }

    /**
     * Waits until every event emitted so far is acknowledged by Kafka. A run's events share one key and so
     * one partition, and acknowledgements of a partition complete in order: the last one implies the rest,
     * and any earlier failure was recorded by then.
     *
     * @throws EmitFailedException when any of them could not be written
     */
    public void awaitDelivered(Duration timeout) throws InterruptedException {
        try {
            lastSent.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new EmitFailedException("events of " + command.runId() + " could not be written to Kafka", e.getCause());
        } catch (TimeoutException e) {
            throw new EmitFailedException("events of " + command.runId() + " not acknowledged within " + timeout, e);
        }
        Throwable failure = firstFailure.get();
        if (failure != null) {
            throw new EmitFailedException("events of " + command.runId() + " could not be written to Kafka", failure);
        }
    }

    public long nextSeq() {
        return nextSeq;
    }
}
