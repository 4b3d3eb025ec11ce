package io.agentrun.platform.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RedisRetryTest {

    @Test
    void aCallThatFailsTwiceIsAnsweredTheThirdTimeAfterGrowingPauses() {
        AtomicInteger calls = new AtomicInteger();
        List<Long> pauses = new ArrayList<>();

        String answer = RedisRetry.untilAnswered(() -> {
            if (calls.incrementAndGet() < 3) {
                throw new RedisConnectionException("down");
            }
            return "up";
        }, pause -> !pauses.add(pause));

        assertThat(answer).isEqualTo("up");
        assertThat(pauses).containsExactly(50L, 100L);
    }

    @Test
    void givingUpRethrowsTheLastFailure() {
        AtomicInteger calls = new AtomicInteger();

        assertThatThrownBy(() -> RedisRetry.untilAnswered(() -> {
            throw new RedisException("failure " + calls.incrementAndGet());
        }, pause -> calls.get() >= 2)).hasMessage("failure 2");
    }

    @Test
    void anInterruptedThreadStopsRetryingWithItsFlagSet() {
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> RedisRetry.untilAnswered(() -> {
                throw new RedisException("down");
            }, pause -> false)).hasMessage("down");
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
        }, pause -> false)).isInstanceOf(IllegalStateException.class);
        assertThat(calls).hasValue(1);
    }
}
