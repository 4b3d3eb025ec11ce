package io.agentrun.replay;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What to replay: one thread's events, optionally one run of it and a time window (by the envelope's
 * {@code created_at}); {@code follow} keeps reading past the topic's current end.
 */
public record ReplayQuery(String threadId, @Nullable String runId, @Nullable Instant from, @Nullable Instant to, boolean follow) {

    public ReplayQuery {
        Objects.requireNonNull(threadId, "threadId");
        if (threadId.isBlank()) {
            throw new IllegalArgumentException("a thread id is required");
        }
        if (from != null && to != null && to.isBefore(from)) {
            throw new IllegalArgumentException("--to is before --from");
        }
    }

    boolean admits(ReplayedEvent event) {
        return (runId == null || runId.equals(event.event().runId()))
                && (from == null || !event.event().createdAt().isBefore(from))
                && (to == null || !event.event().createdAt().isAfter(to));
    }
}
