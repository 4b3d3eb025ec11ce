package io.agentrun.worker.provider;

/** A complete tool call of a model turn; {@code arguments} is the JSON text as the model wrote it (maybe invalid). */
public record ToolCall(String id, String name, String arguments) {
}
