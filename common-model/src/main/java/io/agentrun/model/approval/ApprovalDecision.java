package io.agentrun.model.approval;

import org.jspecify.annotations.Nullable;

/**
 * {@code POST /api/v1/threads/{thread_id}/runs/{run_id}/approvals/{tool_call_id}}.
 *
 * @param decision {@code approve} or {@code deny}; required
 * @param reason   why, at most 1,000 characters; a denial's reason is what the model is told
 */
public record ApprovalDecision(@Nullable String decision, @Nullable String reason) {

    public static final String APPROVE = "approve";
    public static final String DENY = "deny";
    private static final int MAX_REASON = 1000;

    public ApprovalDecision {
        if (decision == null || !(decision.equals(APPROVE) || decision.equals(DENY))) {
            throw new IllegalArgumentException("decision must be \"approve\" or \"deny\"");
        }
        reason = reason == null ? "" : reason.strip();
        if (reason.length() > MAX_REASON) {
            throw new IllegalArgumentException("reason: at most " + MAX_REASON + " characters");
        }
    }
}
