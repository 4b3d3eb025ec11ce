package io.agentrun.client;

/**
 * A decision recorded on a tool call a run waited for: the run goes on ({@code status} {@code resuming}).
 *
 * @param decision {@code approve} or {@code deny}
 */
public record ApprovalResult(String runId, String threadId, String toolCallId, String decision, String status) {
}
