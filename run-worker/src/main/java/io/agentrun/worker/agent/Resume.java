package io.agentrun.worker.agent;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * Where a paused run goes on from: the checkpoint its {@code approval_required} carried, and what was decided on the
 * call it waited for ({@code decision} null: nobody decided, the run was cancelled while it waited).
 *
 * @param decidedBy {@code key_…}, {@code session:<subject>}, or {@code deadline}
 */
public record Resume(JsonNode checkpoint, @Nullable String decision, String reason, String decidedBy) {
}
