package io.agentrun.relay.webhook;

import io.agentrun.model.event.RunStatus;
import io.agentrun.model.webhook.WebhookDelivery;
import io.agentrun.model.webhook.WebhookEndpoint;
import io.agentrun.model.webhook.WebhookEvents;
import io.agentrun.platform.retry.BackOffPolicy;
import io.agentrun.platform.store.RunState;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.webhook.RetrySchedule;
import io.agentrun.platform.webhook.WebhookSender;
import io.agentrun.platform.webhook.WebhookSettings;
import io.agentrun.platform.webhook.WebhookStore;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.util.backoff.BackOffExecution;

/**
 * Sends due deliveries, in every relay (a delivery is taken by one dispatcher at a time: {@link WebhookStore#claimDue}
 * moves it out of reach for a lease, so a dispatcher that dies only delays it). Each send runs on a virtual thread;
 * at most {@code max-in-flight} at once, and at most {@code max-in-flight-per-endpoint} to one endpoint — a delivery
 * for an endpoint that has that many in flight is put back for about one of its typical sends (50 ms to 1 s), so a
 * slow or hanging endpoint holds its own deliveries and nobody else's. A delivery is sent only once its run's end is the run's recorded end: the run_end of
 * a worker that had lost the run (fenced) is not reported.
 */
final class WebhookDispatcher implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(WebhookDispatcher.class);
    /**
     * How long an idle dispatcher waits before it looks at the due index again: from the shortest, doubling while nothing
     * is due, to the longest (two Redis commands a look: 40 a second at 50 ms, for ever, on an idle relay). Deliveries
     * this relay enqueues wake it at once ({@link #wake}); a retry or another relay's delivery waits at most the longest.
     */
    private static final long IDLE_MIN_MS = 50;
    private static final long IDLE_MAX_MS = 400;
    /** Bounds on how long a delivery to an endpoint with all its sends in flight is put back for. */
    private static final long BUSY_MIN_MS = 50;
    private static final long BUSY_MAX_MS = 1_000;
    private static final Duration RUN_NOT_ENDED_YET = Duration.ofMillis(100);

    private final WebhookStore store;
    private final RunStore runs;
    private final WebhookSender sender;
    private final RetrySchedule schedule;
    private final WebhookSettings settings;
    private final Clock clock;
    private final Semaphore inFlight;
    private final Map<String, EndpointLoad> perEndpoint = new ConcurrentHashMap<>();
    private final ExecutorService senders = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("webhook-", 0).factory());
    private final LongAdder delivered = new LongAdder();
    private final LongAdder failedAttempts = new LongAdder();
    private final LongAdder dead = new LongAdder();
    private final Semaphore wakeUps = new Semaphore(0);
    private volatile boolean running;
    private Thread loop;

    WebhookDispatcher(WebhookStore store, RunStore runs, WebhookSender sender, RetrySchedule schedule, WebhookSettings settings,
            Clock clock) {
        this.store = store;
        this.runs = runs;
        this.sender = sender;
        this.schedule = schedule;
        this.settings = settings;
        this.clock = clock;
        this.inFlight = new Semaphore(settings.maxInFlight());
    }

    public long deliveredCount() {
        return delivered.sum();
    }

    public long failedAttemptCount() {
        return failedAttempts.sum();
    }

    public long deadCount() {
        return dead.sum();
    }

    @Override
    public void start() {
        running = true;
        loop = Thread.ofPlatform().name("webhook-dispatcher").start(this::runLoop);
    }

    /** Deliveries were enqueued: the next look at the due index is now. */
    void wake() {
        wakeUps.release();
    }

    private void runLoop() {
        long idleMs = IDLE_MIN_MS;
        BackOffExecution failing = null;
        while (running) {
            try {
                int room = inFlight.availablePermits();
                List<String> due = room == 0 ? List.of() : store.claimDue(room);
                for (String deliveryId : due) {
                    dispatch(deliveryId);
                }
                if (due.isEmpty()) {
                    if (wakeUps.tryAcquire(idleMs, TimeUnit.MILLISECONDS)) {
                        idleMs = IDLE_MIN_MS;
                    } else {
                        idleMs = Math.min(idleMs * 2, IDLE_MAX_MS);
                    }
                    wakeUps.drainPermits();
                } else {
                    idleMs = IDLE_MIN_MS;
                }
                failing = null;
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                failing = failing == null ? BackOffPolicy.STANDARD.backOff().start() : failing;
                long pauseMs = failing.nextBackOff();
                log.warn("webhook dispatch failed ({}); trying again in {} ms", e.getMessage(), pauseMs);
                if (!awaitWakeUp(pauseMs)) {
                    return;
                }
            }
        }
    }

    /** Waits {@code ms} or until woken; false when interrupted (the dispatcher stops). */
    private boolean awaitWakeUp(long ms) {
        try {
            wakeUps.tryAcquire(ms, TimeUnit.MILLISECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void dispatch(String deliveryId) throws InterruptedException {
        Optional<WebhookStore.Pending> found = store.load(deliveryId);
        if (found.isEmpty() || !WebhookDelivery.PENDING.equals(found.get().status())) {
            store.drop(deliveryId, found.map(WebhookStore.Pending::status).orElse(WebhookDelivery.DEAD));
            return;
        }
        WebhookStore.Pending delivery = found.get();
        EndpointLoad load = perEndpoint.computeIfAbsent(delivery.endpointId(), id -> new EndpointLoad(settings.maxInFlightPerEndpoint()));
        if (!load.room.tryAcquire()) {
            store.postpone(deliveryId, clock.instant().plusMillis(load.busyFor()));
            return;
        }
        inFlight.acquire();
        senders.execute(() -> {
            long started = System.nanoTime();
            try {
                send(delivery);
            } catch (RuntimeException e) {
                // Left as claimed: due again when its lease ends.
                log.warn("delivery {} not sent: {}", deliveryId, e.getMessage());
            } finally {
                load.sent((System.nanoTime() - started) / 1_000_000);
                load.room.release();
                inFlight.release();
            }
        });
    }

    /**
     * A run's end is reported once it is the run's recorded end; until the run reads ended it is postponed, and a
     * fenced worker's run_end (the run ended otherwise) is dropped. A waiting notice needs no such check: the relay
     * records it only for an approval_required it applied.
     */
    private boolean endIsRecorded(WebhookStore.Pending delivery) {
        Optional<RunState> run = runs.find(delivery.runId());
        if (run.isPresent() && !run.get().status().isTerminal()) {
            store.postpone(delivery.deliveryId(), clock.instant().plus(RUN_NOT_ENDED_YET));
            return false;
        }
        if (run.isPresent() && !WebhookEvents.of(run.get().status()).map(delivery.eventType()::equals).orElse(false)) {
            store.drop(delivery.deliveryId(), WebhookDelivery.SUPERSEDED);
            return false;
        }
        return true;
    }

    private void send(WebhookStore.Pending delivery) {
        Optional<WebhookEndpoint> endpoint = store.find(delivery.projectId(), delivery.endpointId());
        if (endpoint.isEmpty() || !endpoint.get().enabled()) {
            store.drop(delivery.deliveryId(), WebhookDelivery.DEAD); // deleted or disabled since
            return;
        }
        if (!WebhookEvents.RUN_WAITING.equals(delivery.eventType()) && !endIsRecorded(delivery)) {
            return;
        }
        Instant at = clock.instant();
        WebhookSender.Attempt attempt = sender.send(URI.create(endpoint.get().url()), store.signingSecrets(delivery.endpointId()),
                delivery.deliveryId(), at, delivery.message());
        WebhookDelivery.Attempt logged = new WebhookDelivery.Attempt(at, attempt.status(), attempt.detail(), attempt.took().toMillis());
        if (attempt.delivered()) {
            delivered.increment();
            store.recordAttempt(delivery, logged, WebhookDelivery.DELIVERED, null);
        } else if (!attempt.retryable()) {
            failedAttempts.increment();
            store.recordAttempt(delivery, logged, WebhookDelivery.FAILED, null);
        } else {
            failedAttempts.increment();
            Duration next = schedule.next(delivery.attempts() + 1, store.sinceFirstAttempt(delivery));
            if (next == null) {
                dead.increment();
                log.warn("delivery {} to endpoint {} dead-lettered after {} attempts", delivery.deliveryId(), delivery.endpointId(),
                        delivery.attempts() + 1);
            }
            store.recordAttempt(delivery, logged, next == null ? WebhookDelivery.DEAD : WebhookDelivery.PENDING,
                    next == null ? null : clock.instant().plus(next));
        }
    }

    /**
     * One endpoint's sends in flight, and how long a send to it typically takes. A delivery that finds no room is put
     * back for about one typical send: a fast receiver's next delivery goes within milliseconds, while the deliveries
     * of one that hangs are looked at once a second, not claimed and put back in a busy loop.
     */
    private static final class EndpointLoad {
        final Semaphore room;
        private final AtomicLong typicalMs = new AtomicLong(100);

        EndpointLoad(int maxInFlight) {
            this.room = new Semaphore(maxInFlight);
        }

        void sent(long tookMs) {
            typicalMs.updateAndGet(typical -> (typical * 3 + tookMs) / 4);
        }

        long busyFor() {
            return Math.clamp(typicalMs.get(), BUSY_MIN_MS, BUSY_MAX_MS);
        }
    }

    @Override
    public void stop() {
        running = false;
        if (loop != null) {
            loop.interrupt();
        }
        senders.shutdown();
        // Sends in flight record their outcome in Redis: wait for them (each ends within the send timeout) before the
        // Redis client stops, or an answered delivery would stay claimed and be sent again after its lease.
        try {
            if (!senders.awaitTermination(settings.timeout().plusSeconds(1).toMillis(), TimeUnit.MILLISECONDS)) {
                senders.shutdownNow();
            }
        } catch (InterruptedException e) {
            senders.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
