package io.agentrun.platform.store;

import io.agentrun.model.event.RunStatus;
import io.agentrun.model.event.Usage;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * What Redis knows about a run ({@code ar:run:{id}}).
 *
 * @param lastSeq       highest seq the relay applied, -1 before run_start
 * @param startOffset   Kafka position of the latest run_start; -1 when unknown
 * @param endSeq        seq of run_end once the relay applied it; -1 before
 * @param firstOffset   Kafka position of the first attempt's run_start, where a replay of the whole run starts; -1 when unknown
 * @param keyFamily     the publishable key family that started it, which alone (with secret keys) may read it
 * @param startedAt     the latest attempt's run_start, null before
 * @param endedAt       run_end, null before
 * @param firstEventAt  the first attempt's run_start (the run's first event), null before
 * @param outputJson    the answer as JSON, from its run_end, when the run asked for one in a JSON Schema; null otherwise
 * @param usage         tokens of the whole run, from its run_end; null before
 * @param deleted       its thread was deleted: what is left says only that
 * @param pendingApproval while the run waits for a person: the call it waits on (approval_required's data, without the
 *                      checkpoint); null otherwise
 */
public record RunState(
        String runId,
        RunStatus status,
        String projectId,
        @Nullable String threadId,
        String agentId,
        int attempt,
        long lastSeq,
        long endSeq,
        int startPartition,
        long startOffset,
        long firstOffset,
        String output,
        @Nullable JsonNode outputJson,
        @Nullable String worker,
        @Nullable String errorCode,
        @Nullable String errorMessage,
        Instant createdAt,
        @Nullable String mode,
        @Nullable String keyFamily,
        @Nullable Instant startedAt,
        @Nullable Instant endedAt,
        @Nullable Instant firstEventAt,
        @Nullable Usage usage,
        boolean deleted,
        @Nullable JsonNode pendingApproval) {

    /**
     * The worker marks a run ended when it lets go of it, a moment before the relay applies its {@code run_end} (which
     * brings the output, usage and error; longer when the relay lags): until then a client must not take the bare
     * terminal status for the result. A run a worker claimed has a run_end coming, even when the relay has not applied
     * any of its events yet (a quick run under load); a run no worker claimed (refused, or ended by a sweeper before it
     * started) has none to wait for.
     */
    public boolean endPending() {
        return status.isTerminal() && endSeq < 0 && (lastSeq >= 0 || worker != null);
    }

    /** The status a client is shown: running until the run_end is applied ({@link #endPending()}). */
    public RunStatus shownStatus() {
        return endPending() ? RunStatus.RUNNING : status;
    }

    /** Ended, and its run_end applied: its output, usage and error are here. */
    public boolean ended() {
        return status.isTerminal() && !endPending();
    }
}
