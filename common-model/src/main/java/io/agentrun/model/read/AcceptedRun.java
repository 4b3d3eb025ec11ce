package io.agentrun.model.read;

import io.agentrun.model.event.RunStatus;

/**
 * The answer to a background run's request ({@code 202 Accepted}): the run's ids and where to follow it.
 *
 * @param status {@code queued} when just accepted; a repeat of an idempotent request shows the run's status now
 * @param links  where to read the run, join its stream and cancel it (paths on the same api)
 */
public record AcceptedRun(String runId, String threadId, String agentId, RunStatus status, Links links) {

    public static AcceptedRun of(String runId, String threadId, String agentId, RunStatus status) {
        return new AcceptedRun(runId, threadId, agentId, status, new Links("/api/v1/runs/" + runId,
                "/api/v1/threads/" + threadId + "/runs/" + runId + "/stream",
                "/api/v1/threads/" + threadId + "/runs/" + runId + "/cancel"));
    }

    /** @param self the run's state ({@code GET}); {@code stream} joins it (SSE); {@code cancel} ({@code POST}) ends it */
    public record Links(String self, String stream, String cancel) {
    }
}
