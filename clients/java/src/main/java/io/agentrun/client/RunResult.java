package io.agentrun.client;

import io.agentrun.model.event.RunStatus;
import io.agentrun.model.event.Usage;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * The answer of a one-off run ({@code POST …/run}, {@code Accept: application/json}).
 *
 * @param outputJson the answer parsed, when the request had a {@code response_format}
 */
public record RunResult(String runId, String agentId, RunStatus status, String output, @Nullable JsonNode outputJson,
        Usage usage, long durationMs) {
}
