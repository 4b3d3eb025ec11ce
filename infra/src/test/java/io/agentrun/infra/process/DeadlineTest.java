package io.agentrun.infra.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DeadlineTest {

    @Test
    void returnsOnceTheConditionHoldsHavingCheckedWhileWaitingBetweenChecks() {
        AtomicInteger checks = new AtomicInteger();
        AtomicInteger whileWaiting = new AtomicInteger();

        Deadline.await("the third check", Duration.ofSeconds(10), Duration.ofMillis(5), whileWaiting::incrementAndGet,
                () -> checks.incrementAndGet() >= 3);

        assertThat(checks).hasValue(3);
        assertThat(whileWaiting).hasValue(2);
    }

    @Test
    void whatWhileWaitingThrowsEndsTheWaitAtOnce() {
        long started = System.nanoTime();

        assertThatThrownBy(() -> Deadline.await("a process that died", Duration.ofSeconds(30), Duration.ofMillis(5),
                () -> {
                    throw new IllegalStateException("kafka exited with 1");
                }, () -> false)).isInstanceOf(IllegalStateException.class).hasMessage("kafka exited with 1");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void aConditionThatNeverHoldsTimesOutNamingWhatWasAwaited() {
        assertThatThrownBy(() -> Deadline.await("Kafka on localhost:1", Duration.ofMillis(100), Duration.ofMillis(10), () -> { },
                () -> false)).isInstanceOf(IllegalStateException.class).hasMessage("timed out after PT0.1S waiting for Kafka on localhost:1");
    }
}
