package io.agentrun.client;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * Exponential back-off with jitter, bounded by a total deadline per outage.
 *
 * @param initial  the first wait
 * @param max      the longest single wait
 * @param deadline how long one request (or one gap in a stream) may keep retrying in total
 */
record RetryPolicy(Duration initial, Duration max, Duration deadline) {

    static final RetryPolicy DEFAULT = new RetryPolicy(Duration.ofMillis(100), Duration.ofSeconds(5), Duration.ofMinutes(2));

    /**
     * The wait before attempt {@code attempt + 1}: {@code initial·2^(attempt-1)} capped at {@code max}, then a random
     * point in its upper half, so clients cut off together do not come back together.
     */
    Duration backoff(int attempt) {
        long ceiling = Math.min(max.toMillis(), initial.toMillis() << Math.min(attempt - 1, 20));
        return Duration.ofMillis(ceiling / 2 + ThreadLocalRandom.current().nextLong(ceiling / 2 + 1));
    }

    long deadlineFromNow() {
        return System.nanoTime() + deadline.toNanos();
    }

    /**
     * Waits {@code wait} on the caller's thread, the one place this client waits (a blocking call's retry, a stream's
     * rejoin and {@code Runs.wait}'s next read wait where they were made), or less: until {@code cutShort} completes,
     * when the client or the stream is closed, so closing never waits out a back-off.
     *
     * @return true when the whole wait passed, false when it was cut short
     * @throws AgentrunException {@code interrupted}, naming what was waited for
     */
    static boolean pause(Duration wait, CompletableFuture<?> cutShort, String waitingFor, @Nullable String runId) {
        try {
            cutShort.get(wait.toNanos(), TimeUnit.NANOSECONDS);
            return false;
        } catch (TimeoutException e) {
            return true;
        } catch (ExecutionException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw AgentrunException.local("interrupted", "interrupted while waiting " + waitingFor, runId, e);
        }
    }

    /** Whether waiting {@code wait} still ends before {@code deadlineNanos}. */
    static boolean allows(long deadlineNanos, Duration wait) {
        return System.nanoTime() + wait.toNanos() < deadlineNanos;
    }
}
