package io.agentrun.worker.provider;

import tools.jackson.databind.JsonNode;

/** A tool as offered to the model: name, what it does, and the JSON schema of its arguments. */
public record ToolSpec(String name, String description, JsonNode parameters) {
}
