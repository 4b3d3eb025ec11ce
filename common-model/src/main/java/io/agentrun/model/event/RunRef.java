package io.agentrun.model.event;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * The run a stream serves, and the stream-level events an api node writes to that stream by itself: never in the
 * topic and never numbered, so they leave a client's {@code Last-Event-ID} alone.
 */
public record RunRef(@Nullable String threadId, String runId, String projectId, String agentId) {

    /** {@code run_waiting}: first on a stream whose run waits for its thread, {@code place} in line (1 = next). */
    public StreamNotice waiting(String behindRunId, int place) {
        return notice(StreamNotice.RUN_WAITING, new StreamNotice.Waiting(behindRunId, place));
    }

    /** An {@code error} of the stream (not of the run): the client may join the run again. */
    public StreamNotice error(String code, String message) {
        return notice(EventType.ERROR.wireName(), new EventData.RunError(code, message, true));
    }

    /** The {@code run_end} of a stream this node lost: the run may still finish, as a join would show. */
    public StreamNotice lost() {
        return notice(EventType.RUN_END.wireName(), new EventData.RunEnd(RunStatus.FAILED, "", Usage.NONE, 0));
    }

    private StreamNotice notice(String type, Object data) {
        return new StreamNotice(type, runId, threadId, projectId, agentId, Instant.now(), data);
    }
}
