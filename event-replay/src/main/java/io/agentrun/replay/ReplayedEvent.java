package io.agentrun.replay;

import io.agentrun.model.event.RunEvent;

/** One event as read from the topic: where it is, the envelope exactly as written, and decoded. */
public record ReplayedEvent(int partition, long offset, String json, RunEvent event) {
}
