package io.agentrun.replay;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What to replay: one thread's events, optionally one run of it and a time window (by the envelope's
 * {@code created_at}); {@code follow} keeps reading past the topic's current end. {@code after}, an offset of the
 * thread's partition ({@code -1}: none), starts the read past a record a reader already has: a follower that rejoins
 * after a drop neither misses nor repeats one.
 */
public record ReplayQuery(String threadId, @Nullable String runId, @Nullable Instant from, @Nullable Instant to, boolean follow,
        long after) {

    public ReplayQuery {
        Objects.requireNonNull(threadId, "threadId");
        if (threadId.isBlank()) {
            throw new IllegalArgumentException("a thread id is required");
        }
        if (from != null && to != null && to.isBefore(from)) {
            throw new IllegalArgumentException("--to is before --from");
        }
        if (after < -1) {
            throw new IllegalArgumentException("an offset is 0 or more");
        }
    }

    public ReplayQuery(String threadId, @Nullable String runId, @Nullable Instant from, @Nullable Instant to, boolean follow) {
        this(threadId, runId, from, to, follow, -1);
    }

    boolean admits(ReplayedEvent event) {
        return (runId == null || runId.equals(event.event().runId()))
                && (from == null || !event.event().createdAt().isBefore(from))
                && (to == null || !event.event().createdAt().isAfter(to));
    }
}
