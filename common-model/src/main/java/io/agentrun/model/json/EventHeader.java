package io.agentrun.model.json;

/** The two envelope fields an SSE node needs to forward an event: its type and its sequence number. */
public record EventHeader(String type, long seq) {
}
