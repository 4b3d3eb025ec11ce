package io.agentrun.platform.store;

import java.time.Instant;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What Redis knows about a thread beyond who owns it ({@code ar:thread:{id}}, its history's length and lock).
 *
 * @param activeRun the run holding the thread now, or null
 * @param metadata the first run's request metadata
 */
public record ThreadDetails(ThreadInfo info, Instant createdAt, Instant updatedAt, @Nullable String activeRun,
        long messageCount, Map<String, Object> metadata) {
}
