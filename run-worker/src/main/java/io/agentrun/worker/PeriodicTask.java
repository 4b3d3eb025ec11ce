package io.agentrun.worker;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.springframework.context.SmartLifecycle;

/**
 * Work a worker does every so often while it runs (lease renewal, sweeps, cancel re-checks): started and stopped with
 * the application, the first round after a random part of the interval so workers started together do not act in step.
 */
public abstract class PeriodicTask implements SmartLifecycle {

    private final ScheduledExecutorService timer;
    private final Duration every;
    private volatile ScheduledFuture<?> task;

    protected PeriodicTask(ScheduledExecutorService timer, Duration every) {
        this.timer = timer;
        this.every = every;
    }

    /** One round; must not throw (a thrown exception would end the schedule). */
    protected abstract void runOnce();

    @Override
    public void start() {
        long millis = every.toMillis();
        task = timer.scheduleWithFixedDelay(this::runOnce, ThreadLocalRandom.current().nextLong(millis) + 1, millis,
                TimeUnit.MILLISECONDS);
    }

    @Override
    public void stop() {
        ScheduledFuture<?> running = task;
        if (running != null) {
            running.cancel(false);
        }
        task = null;
    }

    @Override
    public boolean isRunning() {
        return task != null;
    }
}
