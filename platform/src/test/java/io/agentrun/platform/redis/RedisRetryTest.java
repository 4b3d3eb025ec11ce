package io.agentrun.platform.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.agentrun.platform.retry.BackOffPolicy;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RedisRetryTest {

    @Test
    void aCallThatFailsTwiceIsAnsweredTheThirdTimeAfterGrowingPauses() {
        List<Long> calledAt = new ArrayList<>();

        String answer = RedisRetry.untilAnswered(() -> {
            calledAt.add(System.nanoTime());
            if (calledAt.size() < 3) {
                throw new RedisConnectionException("down");
            }
            return "up";
        }, RedisRetry.NO_TIMEOUT, failure -> true);

        assertThat(answer).isEqualTo("up");
        assertThat(calledAt).hasSize(3);
        // 50 ms, then 100 ms, each within the jitter (scaled with the pause, never below the first)
        long first = calledAt.get(1) - calledAt.get(0);
        long second = calledAt.get(2) - calledAt.get(1);
        assertThat(first).as("first pause").isGreaterThanOrEqualTo(BackOffPolicy.STANDARD.first().toNanos());
        assertThat(second).as("second pause, doubled less twice the jitter")
                .isGreaterThanOrEqualTo(BackOffPolicy.STANDARD.first().multipliedBy(2).minus(BackOffPolicy.STANDARD.jitter().multipliedBy(2)).toNanos())
                .isGreaterThan(first);
    }

    @Test
    void theCallerStoppingRethrowsTheLastFailure() {
        AtomicInteger calls = new AtomicInteger();

        assertThatThrownBy(() -> RedisRetry.untilAnswered(() -> {
            throw new RedisException("failure " + calls.incrementAndGet());
        }, RedisRetry.NO_TIMEOUT, failure -> calls.get() < 2)).isExactlyInstanceOf(RedisException.class).hasMessage("failure 2");
    }

    @Test
    void anAttemptWhosePauseWouldEndPastTheTimeoutIsNotMade() {
        AtomicInteger calls = new AtomicInteger();

        // 50 + 100 ms of pauses fit in 300 ms (with 150 ms to spare for a slow machine); the third (200 ms) would not.
        assertThatThrownBy(() -> RedisRetry.untilAnswered(() -> {
            throw new RedisException("failure " + calls.incrementAndGet());
        }, Duration.ofMillis(300), failure -> true)).isExactlyInstanceOf(RedisException.class).hasMessage("failure 3");
    }

    @Test
    void anInterruptedThreadStopsRetryingWithItsFlagSet() {
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> RedisRetry.untilAnswered(() -> {
                throw new RedisException("down");
            }, RedisRetry.NO_TIMEOUT, failure -> true)).hasMessage("down");
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void otherFailuresAreNotRetried() {
        AtomicInteger calls = new AtomicInteger();

        assertThatThrownBy(() -> RedisRetry.untilAnswered(() -> {
            calls.incrementAndGet();
            throw new IllegalStateException("a bug, not Redis");
        }, RedisRetry.NO_TIMEOUT, failure -> true)).isInstanceOf(IllegalStateException.class);
        assertThat(calls).hasValue(1);
    }
}
