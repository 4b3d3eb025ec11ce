package io.agentrun.platform.schedule;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.TaskScheduler;

/**
 * Work a service does every so often while it runs (lease renewals, sweeps, cancel re-checks, upload clean-up): started
 * and stopped with the application, on Spring's {@link TaskScheduler} ({@link SchedulingConfiguration}: a thread for
 * each task's round, so a round that waits on Redis holds no other task's). Each round starts {@code every} after the
 * last one ended (fixed delay, as before: a slow round is not followed by a burst of catch-up rounds). The first round comes after
 * {@link #firstRoundAfter()}: by default a random part of the interval, so services started together do not act in step.
 */
public abstract class PeriodicTask implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(PeriodicTask.class);

    private final TaskScheduler scheduler;
    private final Duration every;
    private volatile @Nullable ScheduledFuture<?> schedule;

    protected PeriodicTask(TaskScheduler scheduler, Duration every) {
        this.scheduler = scheduler;
        this.every = every;
    }

    /** One round. An exception it throws is logged and the next round comes as planned. */
    protected abstract void runOnce();

    /** How long after {@link #start()} the first round comes. */
    protected Duration firstRoundAfter() {
        return Duration.ofMillis(ThreadLocalRandom.current().nextLong(every.toMillis()) + 1);
    }

    private void round() {
        try {
            runOnce();
        } catch (RuntimeException e) {
            log.warn("{}: a round failed ({}); the next comes in {}", getClass().getSimpleName(), e.getMessage(), every);
        }
    }

    @Override
    public void start() {
        schedule = scheduler.scheduleWithFixedDelay(this::round, Instant.now().plus(firstRoundAfter()), every);
    }

    @Override
    public void stop() {
        ScheduledFuture<?> running = schedule;
        if (running != null) {
            running.cancel(false);
        }
        schedule = null;
    }

    @Override
    public boolean isRunning() {
        return schedule != null;
    }
}
