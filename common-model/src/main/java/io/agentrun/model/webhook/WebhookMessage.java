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
public record WebhookMessage(String type, Instant timestamp, Run data) {

    /**
     * The run that ended: its ids, final status, output (and {@code output_json} when it answered in a JSON Schema),
     * usage and duration.
     */
    public record Run(String runId, @Nullable String threadId, String projectId, String agentId, String status, String output,
            @Nullable JsonNode outputJson, Usage usage, long durationMs, Instant endedAt) {
    }
}
