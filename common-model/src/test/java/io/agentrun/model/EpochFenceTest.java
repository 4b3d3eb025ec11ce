package io.agentrun.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.model.event.EpochFence;
import java.util.List;
import org.junit.jupiter.api.Test;

class EpochFenceTest {

    private record E(int epoch, long seq, boolean isRunStart) implements EpochFence.Fenced {
        static E start(int epoch, long seq) {
            return new E(epoch, seq, true);
        }

        static E of(int epoch, long seq) {
            return new E(epoch, seq, false);
        }

        @Override
        public String toString() {
            return epoch + ":" + seq;
        }
    }

    @Test
    void aZombiesEventsAfterTheNextEpochsRunStartAreNotTheRelays() {
        var log = List.of(E.start(1, 0), E.of(1, 1), E.of(1, 2), E.start(2, 3), E.of(1, 3), E.of(2, 4), E.of(1, 4), E.of(2, 5));

        assertThat(EpochFence.applied(log)).hasToString("[1:0, 1:1, 1:2, 2:3, 2:4, 2:5]");
    }

    @Test
    void anOlderEpochsTailBeforeTheNextRunStartInTheLogIsTakenBackByIt() {
        // The relay lagged: epoch 1 wrote 3 and 4 before the takeover, but only 0..2 were applied when epoch 2 claimed.
        var log = List.of(E.start(1, 0), E.of(1, 1), E.of(1, 2), E.of(1, 3), E.of(1, 4), E.start(2, 3), E.of(2, 4));

        assertThat(EpochFence.applied(log)).hasToString("[1:0, 1:1, 1:2, 2:3, 2:4]");
    }

    @Test
    void eventsWithoutAnEpochAreNeverFenced() {
        var log = List.of(E.start(0, 0), E.of(0, 1), E.start(2, 1));

        assertThat(EpochFence.applied(log)).hasSize(3);
    }

    @Test
    void aStreamingReaderDropsTheZombieAndRepeatsAndFollowsTheNewRunStart() {
        var tracker = new EpochFence.Tracker();
        var log = List.of(E.start(1, 0), E.of(1, 1), E.of(1, 1), E.of(1, 2), E.start(2, 2), E.of(1, 3), E.of(2, 3));

        assertThat(log.stream().filter(e -> tracker.admit("run", e)).toList()).hasToString("[1:0, 1:1, 1:2, 2:2, 2:3]");
    }
}
