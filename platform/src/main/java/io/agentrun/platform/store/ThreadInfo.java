package io.agentrun.platform.store;

/** A thread's owner: it belongs to one project and one agent. */
public record ThreadInfo(String threadId, String projectId, String agentId) {
}
