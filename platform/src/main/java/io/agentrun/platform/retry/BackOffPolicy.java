package io.agentrun.platform.retry;

import java.time.Duration;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * The one back-off of the services: how long a loop that retries waits between attempts — a Redis call while Redis does
 * not answer, the relay's batch Redis refused, the share consumer's reconnect, an MCP request whose session was lost, a
 * webhook dispatcher that cannot reach Redis. Exponential from {@code first}, times {@code multiplier}, at most
 * {@code longest}, with up to {@code jitter} added so services that failed together do not retry in step. Spring's
 * {@link BackOff} and {@link RetryTemplate} carry it out; callers say only how long they may wait and which failures
 * are worth another attempt. (Model calls honour a provider's Retry-After and webhooks keep a durable schedule: their
 * waits are set by the other side, not by this policy.)
 */
public record BackOffPolicy(Duration first, double multiplier, Duration longest, Duration jitter) {

    /** 50 ms doubling to 1 s: a Redis failover or a broker restart is over within seconds, and a retry costs one call. */
    public static final BackOffPolicy STANDARD = new BackOffPolicy(Duration.ofMillis(50), 2, Duration.ofSeconds(1), Duration.ofMillis(10));

    /** No limit of time: only the caller's predicate (or an interrupt) ends the retries. */
    public static final Duration NO_TIMEOUT = Duration.ZERO;

    public BackOffPolicy {
        if (first.isNegative() || first.isZero() || longest.compareTo(first) < 0 || multiplier < 1 || jitter.isNegative()) {
            throw new IllegalArgumentException("a back-off needs 0 < first <= longest, multiplier >= 1 and jitter >= 0");
        }
    }

    /**
     * The same policy with no pause longer than {@code most}, as a setting may ask: where a retry is cheap and what waits
     * behind it is a live stream (the relay's batch), a short cap is what matters, not how soon the first retry comes.
     */
    public BackOffPolicy atMost(Duration most) {
        return new BackOffPolicy(first.compareTo(most) < 0 ? first : most, multiplier, most, jitter);
    }

    /** Spring's back-off for this policy, unbounded in attempts and time (for a loop the caller ends). */
    public BackOff backOff() {
        ExponentialBackOff backOff = new ExponentialBackOff(first.toMillis(), multiplier);
        backOff.setMaxInterval(longest.toMillis());
        backOff.setJitter(jitter.toMillis());
        return backOff;
    }

    /**
     * Calls {@code call} until it answers, pausing by this policy after each failure {@code worthRetrying} accepts.
     *
     * @param timeout how long the call and its retries may take in all ({@link #NO_TIMEOUT}: unbounded)
     * @return the call's answer
     * @throws RuntimeException the last failure, once time was up or {@code worthRetrying} said no; an interrupt ends the
     *                          retries with the thread's flag set
     */
    public <T> T untilAnswered(Supplier<T> call, Duration timeout, Predicate<Throwable> worthRetrying) {
        RetryPolicy policy = RetryPolicy.builder().predicate(worthRetrying::test).backOff(backOff()).timeout(timeout).build();
        return new RetryTemplate(policy).invoke(call);
    }
}
