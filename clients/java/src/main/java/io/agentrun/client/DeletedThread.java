package io.agentrun.client;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/** @param cancelledRunId the run the thread was running, cancelled by the deletion */
public record DeletedThread(String threadId, boolean deleted, Instant deletedAt, @Nullable String cancelledRunId) {
}
