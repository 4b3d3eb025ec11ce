package io.agentrun.e2e;

/** One server-sent event as a client parses it; {@code id} is null for events without an id line. */
record SseEvent(String id, String event, String data) {
}
