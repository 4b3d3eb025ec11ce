package io.agentrun.client;

import io.agentrun.model.event.RunStatus;

/** A background run the api queued ({@code 202}): read it, join it, or cancel it. */
public record AcceptedRun(String runId, String threadId, String agentId, RunStatus status, Links links) {

    /** Paths of the run's state, its event stream and its cancel. */
    public record Links(String self, String stream, String cancel) {
    }
}
