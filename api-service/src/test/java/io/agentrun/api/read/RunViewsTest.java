package io.agentrun.api.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.model.event.RunStatus;
import io.agentrun.model.event.Usage;
import io.agentrun.model.read.RunView;
import io.agentrun.platform.store.RunState;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class RunViewsTest {

    private static final Instant CREATED = Instant.parse("2026-11-26T10:00:00Z");
    private static final Instant ENDED = CREATED.plusSeconds(2);

    private static RunState run(RunStatus status, long lastSeq, long endSeq, String output, @Nullable String errorCode) {
        return run(status, lastSeq, endSeq, output, errorCode, lastSeq >= 0 ? "worker-1" : null);
    }

    private static RunState run(RunStatus status, long lastSeq, long endSeq, String output, @Nullable String errorCode,
            @Nullable String worker) {
        return new RunState("run_a", status, "demo", "thr_a", "assistant", 1, lastSeq, endSeq, 0, 10, 10, output, null, worker,
                errorCode, errorCode == null ? null : "why", CREATED, "stream", null, CREATED.plusMillis(5), ENDED, CREATED.plusMillis(5),
                endSeq < 0 ? null : new Usage(2, 4), false, null);
    }

    @Test
    void aRunTheWorkerLetGoOfReadsAsRunningUntilItsRunEndIsApplied() {
        RunView released = RunViews.of(run(RunStatus.COMPLETED, 3, -1, "", null));

        assertThat(released.status()).isEqualTo(RunStatus.RUNNING);
        assertThat(released.output()).isNull();
        assertThat(released.endedAt()).isNull();
        assertThat(released.usage()).isNull();
    }

    @Test
    void anAppliedRunEndReadsAsTheEndWithItsOutput() {
        RunView ended = RunViews.of(run(RunStatus.COMPLETED, 4, 4, "Echo #1: hi", null));

        assertThat(ended.status()).isEqualTo(RunStatus.COMPLETED);
        assertThat(ended.output()).isEqualTo("Echo #1: hi");
        assertThat(ended.endedAt()).isEqualTo(ENDED);
        assertThat(ended.usage()).isEqualTo(new Usage(2, 4));
    }

    /** A quick run under load: the worker is done before the relay applied even its run_start (CI, BackgroundRunIT). */
    @Test
    void aClaimedRunWhoseEventsTheRelayHasNotAppliedYetReadsAsRunning() {
        RunView released = RunViews.of(run(RunStatus.COMPLETED, -1, -1, "", null, "worker-1"));

        assertThat(released.status()).isEqualTo(RunStatus.RUNNING);
        assertThat(released.output()).isNull();
    }

    @Test
    void aRunRefusedBeforeAnyEventHasNoRunEndToWaitFor() {
        RunView refused = RunViews.of(run(RunStatus.FAILED, -1, -1, "", "not_queued"));

        assertThat(refused.status()).isEqualTo(RunStatus.FAILED);
        assertThat(refused.error().code()).isEqualTo("not_queued");
        assertThat(refused.endedAt()).isEqualTo(ENDED);
    }
}
