package io.agentrun.model.read;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A run as an operator reads it ({@code GET /admin/v1/runs/{run_id}}): the client's view, the project it belongs to,
 * and who ran it as the run's record says. The record keeps the latest claim only: earlier attempts' workers are in
 * the event topic (each attempt's {@code run_start}), not here.
 */
public record OperatorRunView(String projectId, RunView run, Ownership ownership) {

    /**
     * @param worker     the worker of the latest claim; null before any
     * @param epoch      claims so far (each takes a new epoch; a claim after a takeover or an approval included)
     * @param owner      the worker that holds the run's lease now; null when none does (queued, waiting, ended)
     * @param leaseUntil when that lease lapses unless renewed, after which a sweeper takes the run over
     * @param claimedAt  when the latest claim was made
     * @param resumes    claims that went on after a person's decision (not counted as attempts)
     * @param requeues   times a sweeper produced the run's command again since its last claim
     */
    public record Ownership(@Nullable String worker, int epoch, @Nullable String owner, @Nullable Instant leaseUntil,
            @Nullable Instant claimedAt, int resumes, int requeues) {
    }
}
