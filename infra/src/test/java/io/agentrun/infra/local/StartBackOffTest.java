package io.agentrun.infra.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class StartBackOffTest {

    private static final Duration EARLY = Duration.ofSeconds(5);

    @Test
    void aServiceThatRanAWhileStartsAgainAtOnce() {
        assertThat(new StartBackOff().after(StartBackOff.STARTING)).isZero();
    }

    @Test
    void aServiceKilledSoonAfterItsStartStartsAgainAtOnce() {
        assertThat(new StartBackOff().after(EARLY)).isZero();
    }

    @Test
    void earlyExitsInARowWaitLongerEachTimeUpToHalfAMinute() {
        StartBackOff backOff = new StartBackOff();

        assertThat(Stream.generate(() -> backOff.after(EARLY)).limit(9).map(Duration::toSeconds))
                .containsExactly(0L, 1L, 2L, 4L, 8L, 16L, 30L, 30L, 30L);
    }

    @Test
    void aStartThatLastedBeginsTheBackOffAfresh() {
        StartBackOff backOff = new StartBackOff();
        backOff.after(EARLY);
        backOff.after(EARLY);
        backOff.after(EARLY);

        assertThat(backOff.after(StartBackOff.STARTING.plusSeconds(1))).isZero();
        assertThat(backOff.after(EARLY)).isZero();
        assertThat(backOff.after(EARLY)).isEqualTo(Duration.ofSeconds(1));
    }
}
