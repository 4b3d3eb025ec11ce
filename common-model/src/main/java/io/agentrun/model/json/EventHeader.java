package io.agentrun.model.json;

/** The envelope fields needed to route, frame and order an event without binding its payload. */
public record EventHeader(String type, long seq, String runId) {
}
