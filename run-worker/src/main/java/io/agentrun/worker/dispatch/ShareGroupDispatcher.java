package io.agentrun.worker.dispatch;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.KafkaSettings;
import io.agentrun.platform.retry.BackOffPolicy;
import io.agentrun.platform.store.RunOwnership;
import io.agentrun.platform.store.RunStore;
import io.agentrun.worker.run.RunSlots;
import io.agentrun.worker.WorkerSettings;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.ShareConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.kafka.core.ShareConsumerFactory;

/**
 * Takes run commands from the share group, claims each run in Redis and acknowledges the record at once:
 * nothing stays acquired in Kafka while a run executes (a share consumer holding records hands out no new
 * ones and lets prefetched ones be archived; docs/architecture.md). Ownership while the run executes is the
 * claim's lease ({@link RunOwnership}).
 *
 * <p>It polls only once it reserved a whole poll's worth of slots ({@code max-poll-records}, which also bounds what
 * the broker acquires for this worker per fetch), so it never takes more than it can start; what each record's
 * acknowledgement is, {@link CommandIntake} decides. Only this class's loop thread touches the (not
 * thread-safe) consumer.
 */
public final class ShareGroupDispatcher implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(ShareGroupDispatcher.class);
    private static final Duration ROOM_CHECK = Duration.ofMillis(200);

    private final ShareConsumerFactory<String, byte[]> consumers;
    private final KafkaSettings kafka;
    private final CommandIntake intake;
    private final RunSlots slots;
    private final WorkerSettings settings;
    private final Map<AcknowledgeType, LongAdder> acknowledged = new EnumMap<>(AcknowledgeType.class);

    private volatile boolean stopping;
    private volatile boolean stopped = true;
    private volatile @Nullable ShareConsumer<String, byte[]> consumer;
    private Thread loop;

    /** What became of a command this worker took. */
    public enum ClaimOutcome { STARTED, DUPLICATE, RELEASED, REJECTED }

    public ShareGroupDispatcher(ShareConsumerFactory<String, byte[]> consumers, KafkaSettings kafka, JsonCodec codec,
            RunOwnership ownership, RunStore runs, RunSlots slots, WorkerSettings settings) {
        this.consumers = consumers;
        this.kafka = kafka;
        this.intake = new CommandIntake(codec, ownership, runs, slots, settings);
        this.slots = slots;
        this.settings = settings;
        for (AcknowledgeType type : AcknowledgeType.values()) {
            acknowledged.put(type, new LongAdder());
        }
    }

    @Override
    public void start() {
        consumer = newConsumer();
        stopping = false;
        stopped = false;
        loop = Thread.ofPlatform().name("share-dispatch").start(this::runLoop);
    }

    @Override
    public void stop() {
        stopping = true;
        ShareConsumer<String, byte[]> open = consumer;
        if (open != null) {
            open.wakeup();
        }
        try {
            loop.join(settings.drainTimeout().plus(settings.deliveryTimeout()).plusSeconds(15).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public boolean isRunning() {
        return !stopped;
    }

    /** How many records this worker acknowledged with {@code type}. */
    public long acknowledgedCount(AcknowledgeType type) {
        return acknowledged.get(type).sum();
    }

    /** How many commands had {@code outcome} here. */
    public long claimCount(ClaimOutcome outcome) {
        return intake.count(outcome);
    }

    private ShareConsumer<String, byte[]> newConsumer() {
        ShareConsumer<String, byte[]> created = consumers.createShareConsumer(kafka.workerGroup(), settings.id(), Map.of(
                "share.acknowledgement.mode", "explicit",
                "share.acquire.mode", "record_limit", // the broker acquires at most max.poll.records per fetch
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, batchSize()));
        created.subscribe(List.of(kafka.commandsTopic()));
        return created;
    }

    private int batchSize() {
        return Math.min(settings.maxPollRecords(), settings.maxInFlight());
    }

    private void runLoop() {
        try {
            // Only the consumer itself fails out of consumeUntilStopped (take() contains per-record failures). Nothing is
            // held in Kafka while runs execute, so a fresh consumer simply takes new work, after the services' back-off.
            BackOffPolicy.STANDARD.untilAnswered(this::consumeOnAConsumer, BackOffPolicy.NO_TIMEOUT,
                    failure -> failure instanceof RuntimeException && !stopping);
        } catch (RuntimeException e) {
            log.error("share dispatch loop ended by a failure while stopping", e);
        }
        try {
            drain();
        } finally {
            closeConsumer(Duration.ofSeconds(10));
            stopped = true;
        }
    }

    /** Consumes until stopped; on a failure closes the consumer (the next attempt makes a new one) and rethrows. */
    private @Nullable Void consumeOnAConsumer() {
        ShareConsumer<String, byte[]> current = consumer;
        if (current == null) {
            current = newConsumer();
            consumer = current;
        }
        try {
            consumeUntilStopped(current);
            return null;
        } catch (RuntimeException e) {
            log.error("share dispatch loop failed; reconnecting", e);
            closeConsumer(Duration.ofSeconds(5));
            throw e;
        }
    }

    private void closeConsumer(Duration wait) {
        ShareConsumer<String, byte[]> open = consumer;
        consumer = null;
        if (open != null) {
            open.close(wait);
        }
    }

    private void consumeUntilStopped(ShareConsumer<String, byte[]> consumer) {
        while (!stopping) {
            Optional<RunSlots.Reservation> room = reserveRoom();
            if (room.isEmpty()) {
                continue;
            }
            ConsumerRecords<String, byte[]> records;
            try (RunSlots.Reservation reserved = room.get()) {
                records = pollQuietly(consumer);
                intake.take(records, () -> stopping, reserved).forEach(decision -> acknowledge(consumer, decision));
            }
            if (!records.isEmpty() && slots.room() < batchSize()) {
                // No poll soon (the worker is full): send the acknowledgements now. Otherwise they go with the next
                // poll's fetch: one broker request fewer per poll.
                consumer.commitAsync();
            }
        }
    }

    /** A poll's worth of slots, reserved before the poll (so whatever it brings can start), or empty after a while. */
    private Optional<RunSlots.Reservation> reserveRoom() {
        try {
            return slots.reserve(batchSize(), ROOM_CHECK);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopping = true;
            return Optional.empty();
        }
    }

    private ConsumerRecords<String, byte[]> pollQuietly(ShareConsumer<String, byte[]> consumer) {
        try {
            return consumer.poll(settings.pollTimeout());
        } catch (WakeupException e) {
            return ConsumerRecords.empty();
        }
    }

    private void acknowledge(ShareConsumer<String, byte[]> consumer, CommandIntake.Decision decision) {
        ConsumerRecord<String, byte[]> record = decision.record();
        AcknowledgeType type = decision.type();
        try {
            consumer.acknowledge(record, type);
            acknowledged.get(type).increment();
        } catch (IllegalStateException e) {
            log.warn("could not acknowledge {}-{} with {}: {}", record.partition(), record.offset(), type, e.getMessage());
        }
    }

    /**
     * Shutdown: no new commands; runs may finish until {@code drain-timeout}, then they are stopped without
     * run_end and handed back (another worker's sweeper produces them again at once).
     */
    private void drain() {
        try {
            if (!slots.awaitIdle(settings.drainTimeout())) {
                log.warn("drain timeout: handing back {} running runs", slots.executing());
                slots.stopAll(settings.deliveryTimeout().plusSeconds(10));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public int getPhase() {
        // Stop first: draining runs still use the Redis client (its factory stops at phase 0) and the Kafka producers
        // (plain beans, destroyed after every lifecycle stopped).
        return Integer.MAX_VALUE;
    }
}
