package io.agentrun.model.event;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A stream-level event (made by {@link RunRef}): the event envelope without {@code seq} and {@code epoch}, in the same
 * field order, encoded by {@link io.agentrun.model.json.JsonCodec#encode(StreamNotice)}.
 *
 * @param data an {@link EventData} record ({@code error}, {@code run_end}) or {@link Waiting}
 */
public record StreamNotice(String type, String runId, @Nullable String threadId, String projectId, String agentId,
        Instant createdAt, Object data) {

    public static final String RUN_WAITING = "run_waiting";

    /** Data of {@code run_waiting}. */
    public record Waiting(String behindRunId, int place) {
    }
}
