package io.agentrun.model.read;

import java.time.Instant;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A thread read back.
 *
 * @param activeRunId  the run holding the thread now (a new turn is refused with 409 until it ends), or null
 * @param messageCount entries of the history the model sees (a question enters it with its answer)
 * @param metadata     the first run's request metadata
 */
public record ThreadView(String threadId, String agentId, Instant createdAt, Instant updatedAt, @Nullable String activeRunId,
        long messageCount, Map<String, Object> metadata) {
}
