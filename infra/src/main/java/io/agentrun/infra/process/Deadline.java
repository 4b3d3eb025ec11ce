package io.agentrun.infra.process;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for a condition with a deadline, polling; the only waiting this module does. */
public final class Deadline {

    private Deadline() {
    }

    /**
     * Polls {@code condition} every {@code poll} until it holds or {@code timeout} passes.
     *
     * @param whileWaiting checked before each poll, e.g. that the child process still runs
     * @throws IllegalStateException naming {@code what} on timeout
     */
    public static void await(String what, Duration timeout, Duration poll, Runnable whileWaiting, BooleanSupplier condition) {
        long end = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            whileWaiting.run();
            if (System.nanoTime() > end) {
                throw new IllegalStateException("timed out after " + timeout + " waiting for " + what);
            }
            try {
                Thread.sleep(poll.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for " + what, e);
            }
        }
    }
}
