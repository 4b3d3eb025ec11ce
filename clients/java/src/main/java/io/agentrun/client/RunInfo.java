package io.agentrun.client;

import io.agentrun.model.event.RunStatus;
import io.agentrun.model.event.Usage;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * A run as {@code GET /api/v1/runs/{id}} (and a thread's run list) shows it. {@code output}, {@code usage} appear when
 * it ended; {@code error} when it failed or was refused.
 *
 * @param mode {@code stream}, {@code one_off} or {@code background}
 * @param pendingApproval while the run is {@code waiting}: the tool call it waits for a decision on ({@link Runs#decide})
 */
public record RunInfo(String runId, RunStatus status, String agentId, @Nullable String threadId, @Nullable String mode,
        int attempt, Instant createdAt, @Nullable Instant startedAt, @Nullable Instant endedAt, @Nullable String output,
        @Nullable JsonNode outputJson, @Nullable Usage usage, @Nullable Failure error, @Nullable JsonNode pendingApproval) {

    /** Why a run failed: e.g. {@code not_queued}, {@code output_schema_mismatch}. */
    public record Failure(String code, String message) {
    }
}
