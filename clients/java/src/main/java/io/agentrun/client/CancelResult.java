package io.agentrun.client;

import org.jspecify.annotations.Nullable;

/**
 * @param status {@code cancelling}, or the final status of a run that had ended already
 * @param output the final output of a run that had ended already
 */
public record CancelResult(String runId, String threadId, String status, @Nullable String output) {
}
