package io.agentrun.client;

import java.time.Instant;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** A thread: its active run while one holds it, the history's size, the metadata of its first run. */
public record ThreadInfo(String threadId, String agentId, Instant createdAt, Instant updatedAt, @Nullable String activeRunId,
        int messageCount, Map<String, Object> metadata) {

    public ThreadInfo {
        metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
    }
}
