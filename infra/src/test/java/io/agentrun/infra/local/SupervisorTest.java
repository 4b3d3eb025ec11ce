package io.agentrun.infra.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.infra.process.Deadline;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SupervisorTest {

    private static final Duration WITHIN = Duration.ofSeconds(5);
    private static final Duration POLL = Duration.ofMillis(10);

    private final Supervisor supervisor = new Supervisor();

    @Test
    void aPartDiesAndIsStartedAgainTwiceWhileAnotherPartsRestartIsStillUnderWay() throws InterruptedException {
        CountDownLatch brokerReady = new CountDownLatch(1);
        AtomicBoolean brokerAlive = new AtomicBoolean(false);
        AtomicBoolean redisAlive = new AtomicBoolean(false);
        AtomicInteger redisStarts = new AtomicInteger();
        supervisor.watch("broker", brokerAlive::get, () -> {
            brokerReady.await(); // a broker replaying its log
            brokerAlive.set(true);
        });
        supervisor.watch("redis", redisAlive::get, () -> {
            redisStarts.incrementAndGet();
            redisAlive.set(true);
        });
        try {
            Deadline.await("redis started again", WITHIN, POLL, () -> { }, redisAlive::get);
            redisAlive.set(false);
            Deadline.await("redis started again, a second time", WITHIN, POLL, () -> { }, () -> redisStarts.get() == 2 && redisAlive.get());

            assertThat(brokerAlive).as("the broker's restart is still under way").isFalse();
        } finally {
            brokerReady.countDown();
            supervisor.stop();
        }
    }

    @Test
    void stopEndsARestartThatWaitsAndStartsNothing() throws InterruptedException {
        CountDownLatch waiting = new CountDownLatch(1);
        AtomicBoolean started = new AtomicBoolean(false);
        supervisor.watch("service", () -> false, () -> {
            waiting.countDown();
            Thread.sleep(Duration.ofMinutes(1)); // a back-off, or a wait for Kafka, under way when the stack stops
            started.set(true);
        });
        assertThat(waiting.await(WITHIN.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

        long stopping = System.nanoTime();
        supervisor.stop();

        assertThat(Duration.ofNanos(System.nanoTime() - stopping)).isLessThan(WITHIN);
        assertThat(started).as("started after the stack stopped").isFalse();
        assertThat(supervisor.stopping()).isTrue();
    }
}
