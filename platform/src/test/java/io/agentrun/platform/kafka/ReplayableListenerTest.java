package io.agentrun.platform.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ReplayableListenerTest {

    @ParameterizedTest(name = "at {0}, first record at the time {1} → {2}")
    @CsvSource({
            "100, 40, 40",   // applied past the time: back to its first record
            "100, 100, 100", // exactly there
            "100, 130, 100", // lagging (still before the time): never forward, or records 100..129 would be skipped
            "100, -1, 100",  // no record that recent: stays
            "0, -1, 0"})
    void aReplayOnlyEverMovesAPartitionBack(long position, long firstAtTime, long expected) {
        assertThat(ReplayableListener.replayFrom(position, firstAtTime)).isEqualTo(expected);
    }
}
