package io.agentrun.model.webhook;

import io.agentrun.model.event.Usage;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * What a receiver gets (the Standard Webhooks shape: {@code type}, {@code timestamp}, {@code data}).
 *
 * @param type one of {@link WebhookEvents#ALL}
 */
public record WebhookMessage(String type, Instant timestamp, Data data) {

    /** What the message is about: a run that ended, or one that waits for a person. */
    public sealed interface Data {
    }

    /**
     * The run that ended: its ids, final status, output (and {@code output_json} when it answered in a JSON Schema),
     * usage and duration.
     */
    public record Run(String runId, @Nullable String threadId, String projectId, String agentId, String status, String output,
            @Nullable JsonNode outputJson, Usage usage, long durationMs, Instant endedAt) implements Data {
    }

    /**
     * A run that waits for a person's decision on a tool call ({@code run.waiting}): where to decide
     * ({@code POST …/approvals/{tool_call_id}}), on what, and until when.
     */
    public record Waiting(String runId, @Nullable String threadId, String projectId, String agentId, String status, String toolCallId,
            String name, JsonNode arguments, Instant deadline) implements Data {
    }
}
