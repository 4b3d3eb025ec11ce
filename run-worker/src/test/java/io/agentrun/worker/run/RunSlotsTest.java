package io.agentrun.worker.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.agentrun.model.testing.TestData;
import io.agentrun.platform.store.RunOwnership;
import io.agentrun.worker.WorkerSettings;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.context.Context;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The room the dispatcher checks before a poll is the room it holds while the poll's runs start. */
class RunSlotsTest {

    private static final int MAX_IN_FLIGHT = 4;

    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    // The executor and the cancellation watcher are never reached: no run is started in these tests.
    private final RunSlots slots = new RunSlots(null, null, threads, settings(), OpenTelemetry.noop().getTracer("test"));

    @AfterEach
    void stop() {
        threads.shutdownNow();
    }

    @Test
    void aReservationHoldsItsSlotsUntilClosed() throws InterruptedException {
        RunSlots.Reservation reserved = slots.reserve(MAX_IN_FLIGHT, Duration.ZERO).orElseThrow();

        assertThat(slots.room()).as("while the poll runs").isZero();
        assertThat(slots.reserve(1, Duration.ofMillis(50))).as("a second poller finds no room").isEmpty();

        reserved.close();
        assertThat(slots.room()).as("the unused slots went back").isEqualTo(MAX_IN_FLIGHT);
        assertThat(reserved.left()).isZero();
    }

    @Test
    void aReservationWaitsForTheRoomItAsksFor() throws InterruptedException {
        try (RunSlots.Reservation most = slots.reserve(MAX_IN_FLIGHT - 1, Duration.ZERO).orElseThrow()) {
            assertThat(slots.reserve(2, Duration.ofMillis(50))).as("only one slot is free").isEmpty();
            assertThat(most.left()).isEqualTo(MAX_IN_FLIGHT - 1);
        }
        try (RunSlots.Reservation two = slots.reserve(2, Duration.ZERO).orElseThrow()) {
            assertThat(two.left()).isEqualTo(2);
            assertThat(slots.room()).isEqualTo(MAX_IN_FLIGHT - 2);
        }
    }

    @Test
    void aRunBeyondItsReservationIsRefusedBeforeItStarts() throws InterruptedException {
        RunSlots.Reservation none = slots.reserve(1, Duration.ZERO).orElseThrow();
        none.close();

        assertThatThrownBy(() -> slots.start(TestData.aRunCommand().build(), new RunOwnership.Claim.Won(1, 0), Context.root(), none))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("more runs than the slots reserved");
        assertThat(slots.executing()).isZero();
        assertThat(slots.room()).isEqualTo(MAX_IN_FLIGHT);
    }

    private static WorkerSettings settings() {
        return new WorkerSettings("worker-test", MAX_IN_FLIGHT, 16, Duration.ofMillis(500), Duration.ofMinutes(10), Duration.ofSeconds(30),
                Duration.ofMillis(5), Duration.ofSeconds(30), Duration.ofSeconds(5), Duration.ofSeconds(1), Duration.ofSeconds(1),
                WorkerSettings.IndexRepairMode.CLUSTER, Duration.ofSeconds(5), Duration.ofSeconds(20), Duration.ofMinutes(15), 5,
                Duration.ofSeconds(10));
    }
}
