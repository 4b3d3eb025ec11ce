package io.agentrun.platform.store;

import org.jspecify.annotations.Nullable;

/**
 * A thread's owner: it belongs to one project and one agent.
 *
 * @param keyFamily the publishable key family that started it; {@code null} for server-side callers
 */
public record ThreadInfo(String threadId, String projectId, String agentId, @Nullable String keyFamily) {
}
