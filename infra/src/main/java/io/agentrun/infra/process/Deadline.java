package io.agentrun.infra.process;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * Waits for a condition with a deadline: the only waiting this module does. The condition is checked on a scheduler
 * of the wait's own, every {@code poll}; the caller waits for its answer, for a failure of a check, or for the deadline.
 * No check runs once {@link #await} has returned or thrown: a condition may read what the caller closes next (a Kafka
 * consumer, which refuses a second thread).
 */
public final class Deadline {

    /** How long a check in flight at the deadline may take to end, once interrupted, before the caller goes on anyway. */
    private static final Duration CHECK_IN_FLIGHT = Duration.ofSeconds(30);

    private Deadline() {
    }

    /**
     * Checks {@code condition} now and every {@code poll} until it holds or {@code timeout} passes.
     *
     * @param whileWaiting run after each check that found the condition false, e.g. that the child process still runs;
     *                     what it throws ends the wait
     * @throws IllegalStateException naming {@code what} on timeout
     */
    public static void await(String what, Duration timeout, Duration poll, Runnable whileWaiting, BooleanSupplier condition) {
        CompletableFuture<Void> met = new CompletableFuture<>();
        ScheduledExecutorService checks = Executors.newSingleThreadScheduledExecutor(Thread.ofVirtual().name("deadline-check").factory());
        try {
            checks.scheduleWithFixedDelay(() -> check(met, whileWaiting, condition), 0, poll.toNanos(), TimeUnit.NANOSECONDS);
            met.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException("timed out after " + timeout + " waiting for " + what);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException failure ? failure : new IllegalStateException(what, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for " + what, e);
        } finally {
            met.cancel(false); // a check not yet started skips the condition
            checks.shutdownNow(); // and one in flight is interrupted
            awaitChecksEnded(checks);
        }
    }

    private static void awaitChecksEnded(ScheduledExecutorService checks) {
        try {
            checks.awaitTermination(CHECK_IN_FLIGHT.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void check(CompletableFuture<Void> met, Runnable whileWaiting, BooleanSupplier condition) {
        if (met.isDone()) {
            return;
        }
        try {
            if (condition.getAsBoolean()) {
                met.complete(null);
            } else {
                whileWaiting.run();
            }
        } catch (RuntimeException | Error e) {
            met.completeExceptionally(e);
        }
    }
}
