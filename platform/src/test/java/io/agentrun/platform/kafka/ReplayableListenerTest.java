package io.agentrun.platform.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
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

    /** A failover fires several topology events within moments: one replay, not one per event. */
    @Test
    void topologyChangesWhileAReplayIsBeingAskedForJoinIt() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        List<Instant> asked = new CopyOnWriteArrayList<>();
        ReplayableListener listener = new ReplayableListener(null) {
            @Override
            public int replaySince(Instant since) {
                asked.add(since);
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return 1;
            }
        };

        listener.replayAfterTopologyChange(Duration.ofSeconds(60));
        await().atMost(Duration.ofSeconds(5)).until(() -> asked.size() == 1);
        for (int i = 0; i < 5; i++) {
            listener.replayAfterTopologyChange(Duration.ofSeconds(60));
        }
        release.countDown();
        await().atMost(Duration.ofSeconds(5)).until(() -> !listener.replayPending());
        assertThat(asked).as("the five changes joined the pending replay").hasSize(1);

        // Once it was asked, the next change asks again: a later failover gets its own replay.
        listener.replayAfterTopologyChange(Duration.ofSeconds(60));
        await().atMost(Duration.ofSeconds(5)).until(() -> asked.size() == 2);
        assertThat(asked.get(1)).isAfterOrEqualTo(asked.get(0));
    }
}
