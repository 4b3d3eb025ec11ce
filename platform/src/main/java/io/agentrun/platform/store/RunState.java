package io.agentrun.platform.store;

import io.agentrun.model.event.RunStatus;
import org.jspecify.annotations.Nullable;

/**
 * What Redis knows about a run ({@code ar:run:{id}}).
 *
 * @param lastSeq       highest seq the relay applied, -1 before run_start
 * @param startOffset   Kafka position of the latest run_start, for replay without scanning; -1 when unknown
 */
public record RunState(
        String runId,
        RunStatus status,
        String projectId,
        @Nullable String threadId,
        String agentId,
        int attempt,
        long lastSeq,
        int startPartition,
        long startOffset,
        String output,
        @Nullable String worker,
        @Nullable String errorCode,
        @Nullable String errorMessage) {
}
