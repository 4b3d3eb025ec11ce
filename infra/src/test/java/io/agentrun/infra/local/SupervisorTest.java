package io.agentrun.infra.local;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.infra.process.Deadline;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class SupervisorTest {

    private static final Duration WITHIN = Duration.ofSeconds(5);
    private static final Duration POLL = Duration.ofMillis(10);

    private final Supervisor supervisor = new Supervisor();

    /** A part's process as the supervisor sees it: its exit, which a test brings about, and a start that makes a new one. */
    private static final class Part {
        final AtomicReference<CompletableFuture<Void>> process = new AtomicReference<>(CompletableFuture.completedFuture(null));
        final AtomicInteger starts = new AtomicInteger();

        CompletableFuture<?> exited() {
            return process.get();
        }

        void start() {
            process.set(new CompletableFuture<>());
            starts.incrementAndGet();
        }

        boolean alive() {
            return !process.get().isDone();
        }

        void die() {
            process.get().complete(null);
        }
    }

    @Test
    void aPartDiesAndIsStartedAgainTwiceWhileAnotherPartsRestartIsStillUnderWay() throws InterruptedException {
        CountDownLatch brokerReady = new CountDownLatch(1);
        Part broker = new Part();
        Part redis = new Part();
        supervisor.watch("broker", broker::exited, () -> {
            brokerReady.await(); // a broker replaying its log
            broker.start();
        });
        supervisor.watch("redis", redis::exited, redis::start);
        try {
            Deadline.await("redis started again", WITHIN, POLL, () -> { }, redis::alive);
            redis.die();
            Deadline.await("redis started again, a second time", WITHIN, POLL, () -> { }, () -> redis.starts.get() == 2 && redis.alive());

            assertThat(broker.alive()).as("the broker's restart is still under way").isFalse();
        } finally {
            brokerReady.countDown();
            supervisor.stop();
        }
    }

    @Test
    void aRestartThatFailsIsTriedAgain() throws InterruptedException {
        Part redis = new Part();
        AtomicInteger tries = new AtomicInteger();
        supervisor.watch("redis", redis::exited, () -> {
            if (tries.incrementAndGet() < 3) {
                throw new java.io.IOException("port still held");
            }
            redis.start();
        });
        try {
            Deadline.await("redis started on the third try", WITHIN, POLL, () -> { }, redis::alive);
            assertThat(tries).hasValue(3);
        } finally {
            supervisor.stop();
        }
    }

    @Test
    void stopEndsARestartThatWaitsAndStartsNothing() throws InterruptedException {
        CountDownLatch waiting = new CountDownLatch(1);
        AtomicBoolean started = new AtomicBoolean(false);
        supervisor.watch("service", () -> CompletableFuture.completedFuture(null), () -> {
            waiting.countDown();
            if (supervisor.waitUnlessStopping(Duration.ofMinutes(1))) { // a back-off under way when the stack stops
                started.set(true);
            }
        });
        assertThat(waiting.await(WITHIN.toMillis(), TimeUnit.MILLISECONDS)).isTrue();

        long stopping = System.nanoTime();
        supervisor.stop();

        assertThat(Duration.ofNanos(System.nanoTime() - stopping)).isLessThan(WITHIN);
        assertThat(started).as("started after the stack stopped").isFalse();
        assertThat(supervisor.stopping()).isTrue();
    }
}
