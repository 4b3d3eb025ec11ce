package io.agentrun.worker.cancel;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Cancellation of one run, observed by the run's code: a flag to check and a wait that ends early when
 * the run is cancelled. The reason tells the run how to end.
 */
public final class CancelToken {

    /** Why a run stops before its end. */
    public enum Reason {
        /** The caller asked: end with {@code run_end cancelled}. */
        REQUESTED,
        /** The run exceeded its time budget: end with {@code run_end timed_out}. */
        TIMED_OUT,
        /** This worker shuts down: stop without run_end; the run is handed back and continues elsewhere. */
        SHUTDOWN,
        /**
         * This worker no longer owns the run (its lease lapsed and another worker took it over): stop at once,
         * without run_end; whatever it still writes is fenced by the relay.
         */
        LEASE_LOST
    }

    private final CountDownLatch cancelled = new CountDownLatch(1);
    private final List<Runnable> hooks = new CopyOnWriteArrayList<>();
    private volatile @Nullable Reason reason;

    public void cancel(Reason why) {
        synchronized (this) {
            if (reason != null) {
                return;
            }
            reason = why;
        }
        cancelled.countDown();
        hooks.forEach(CancelToken::runQuietly);
    }

    /**
     * Runs {@code action} when the run is cancelled (at once if it already is): how a blocked HTTP read or
     * a running tool is aborted. Close the returned handle when the guarded work is over.
     */
    public Registration onCancel(Runnable action) {
        hooks.add(action);
        if (isCancelled()) {
            runQuietly(action);
        }
        return () -> hooks.remove(action);
    }

    /** Removes a cancel action. */
    @FunctionalInterface
    public interface Registration extends AutoCloseable {
        @Override
        void close();
    }

    private static void runQuietly(Runnable action) {
        try {
            action.run();
        } catch (RuntimeException e) {
            // aborting is best effort: the run stops at its next cancellation check anyway
        }
    }

    public boolean isCancelled() {
        return reason != null;
    }

    public @Nullable Reason reason() {
        return reason;
    }

    /**
     * Waits {@code duration} unless cancelled first.
     *
     * @return true when the full duration passed, false when cancelled
     */
    public boolean pause(Duration duration) throws InterruptedException {
        if (duration.isZero() || duration.isNegative()) {
            return !isCancelled();
        }
        return !cancelled.await(duration.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** @throws RunCancelledException when cancelled, so deep code can bail out in one line */
    public void throwIfCancelled() {
        Reason why = reason;
        if (why != null) {
            throw new RunCancelledException(why);
        }
    }
}
