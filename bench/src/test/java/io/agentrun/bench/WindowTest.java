package io.agentrun.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class WindowTest {

    private static final long MS = 1_000_000;
    /** Ramp from 0 to 100 ms, measured from 100 ms to 1,100 ms. */
    private final Window window = Window.after(0, 100 * MS, 1_000 * MS);

    @Test
    void theRampIsNotInTheWindowAndItsEndIsOpen() {
        assertThat(window.contains(99 * MS)).isFalse();
        assertThat(window.contains(100 * MS)).isTrue();
        assertThat(window.contains(1_100 * MS - 1)).isTrue();
        assertThat(window.contains(1_100 * MS)).isFalse();
        assertThat(window.seconds()).isEqualTo(1.0);
    }

    @Test
    void aRunAcrossTheRampsEndCountsOnlyItsEventsReceivedInTheWindow() {
        RunWatch watch = new RunWatch(window);
        watch.started(50 * MS);
        receive(watch, 0, "run_start", 60);
        receive(watch, 1, "message_delta", 90);
        receive(watch, 2, "message_final", 120);
        receive(watch, 3, "run_end", 130);
        assertThat(watch.events()).isEqualTo(4);
        assertThat(watch.measuredEvents()).isEqualTo(2);
        assertThat(watch.delivery.size()).as("latencies of the window's events only").isEqualTo(2);
        assertThat(watch.endedInWindow()).isTrue();
        assertThat(watch.startedInWindow()).as("its time to first event is the ramp's").isFalse();
    }

    @Test
    void aRunStartedInTheWindowAndEndedInTheTailGivesItsTimeToFirstEventButNoRun() {
        RunWatch watch = new RunWatch(window);
        watch.started(1_090 * MS);
        receive(watch, 0, "run_start", 1_095);
        receive(watch, 1, "run_end", 1_105);
        assertThat(watch.measuredEvents()).isEqualTo(1);
        assertThat(watch.endedInWindow()).isFalse();
        assertThat(watch.startedInWindow()).isTrue();
        assertThat(watch.ttfeMicros()).isEqualTo(5_000);
    }

    @Test
    void ratesDivideTheWindowsCountsByItsLengthWhileTotalsKeepEverything() {
        Load.Client client = new Load.Client(0, 0, window);
        RunWatch ramp = new RunWatch(window);
        ramp.started(10 * MS);
        receive(ramp, 0, "run_start", 20);
        receive(ramp, 1, "run_end", 150);
        client.take(ramp);
        RunWatch inside = new RunWatch(window);
        inside.started(200 * MS);
        receive(inside, 0, "run_start", 210);
        receive(inside, 1, "message_delta", 220);
        receive(inside, 2, "run_end", 230);
        client.take(inside);
        client.runs = 2;

        Phase.Figures figures = Phase.Figures.of(List.of(client), window.seconds(), new Load.Errors());

        assertThat(figures.events()).isEqualTo(5);
        assertThat(figures.measuredEvents()).isEqualTo(4);
        assertThat(figures.eventsPerSecond()).isEqualTo(4.0);
        assertThat(figures.runsPerSecond()).isEqualTo(2.0);
        assertThat(figures.ttfe().count()).as("only the run started in the window").isEqualTo(1);
        assertThat(figures.delivery().count()).isEqualTo(4);
    }

    private static void receive(RunWatch watch, long seq, String type, long atMillis) {
        watch.onEvent(new SseEvent(seq, type, 1_000), atMillis * MS, 1_000_000 + atMillis * 1000);
    }
}
