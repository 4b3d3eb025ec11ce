package io.agentrun.infra.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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

    @Test
    void aCheckInFlightAtTheDeadlineHasEndedWhenTheWaitThrows() {
        AtomicBoolean checking = new AtomicBoolean();
        CountDownLatch never = new CountDownLatch(1);

        assertThatThrownBy(() -> Deadline.await("a slow check", Duration.ofMillis(100), Duration.ofMillis(10), () -> { }, () -> {
            checking.set(true);
            try {
                return never.await(20, TimeUnit.SECONDS); // a poll that outlasts the deadline
            } catch (InterruptedException e) {
                return finishingAfterAnInterrupt(never); // as a client's poll ends its request first
            } finally {
                checking.set(false);
            }
        })).hasMessage("timed out after PT0.1S waiting for a slow check");
        assertThat(checking).as("the caller may now close what the check reads").isFalse();
    }

    private static boolean finishingAfterAnInterrupt(CountDownLatch never) {
        try {
            return never.await(300, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
