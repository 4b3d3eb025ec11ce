package io.agentrun.worker.tool;

import io.agentrun.worker.context.RunContexts;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * One call of a tool: its arguments (a JSON object), the request's metadata, and the run's contexts.
 * {@code runId} + {@code toolCallId} name the call the same way in every attempt of the run (a takeover, a resume),
 * which a tool with side effects can use to do them once.
 */
public record ToolInvocation(String runId, String toolCallId, String projectId, JsonNode arguments, Map<String, Object> metadata,
        RunContexts contexts) {

    /** The call's name across attempts: {@code <run id>/<tool call id>}. */
    public String idempotencyKey() {
        return runId + "/" + toolCallId;
    }

    /** A required string argument. */
    public String requireString(String name) throws ToolException {
        JsonNode value = arguments.get(name);
        if (value == null || !value.isString() || value.asString().isBlank()) {
            throw new ToolException("argument '" + name + "' (a non-empty string) is required");
        }
        return value.asString();
    }

    /** An optional string argument. */
    public String optionalString(String name, String fallback) throws ToolException {
        JsonNode value = arguments.get(name);
        if (value == null || value.isNull()) {
            return fallback;
        }
        if (!value.isString()) {
            throw new ToolException("argument '" + name + "' must be a string");
        }
        return value.asString();
    }
}
