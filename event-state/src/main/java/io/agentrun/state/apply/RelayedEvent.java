package io.agentrun.state.apply;

import io.agentrun.model.event.EventType;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.json.CodecException;
import io.agentrun.model.json.EventHeader;
import io.agentrun.model.json.JsonCodec;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * One record of the event topic as the relay applies it: the envelope as it came, the few fields that route
 * and order it, and the decoded event only for the types whose payload the scripts read (run_start, approval_required, approval_decided,
 * message_final, error, run_end). Most events are deltas, and the relay never binds their payload: that
 * full decode was the largest share of its CPU per event.
 *
 * @param event       the decoded event; null for the types forwarded on their header alone
 * @param traceparent prefixed to the event's live message when not empty (see {@link #traced})
 */
public record RelayedEvent(EventType type, long seq, int epoch, String runId, @Nullable RunEvent event, String json,
        int partition, long offset, String traceparent) {

    /** @throws CodecException when the bytes are not an event envelope */
    public static RelayedEvent read(JsonCodec codec, byte @Nullable [] value, int partition, long offset) {
        if (value == null) {
            throw new CodecException("record without a value (a tombstone)", null); // not ours to write: skipped, never fatal
        }
        String json = new String(value, StandardCharsets.UTF_8);
        EventHeader header = codec.peekHeader(json);
        EventType type;
        try {
            type = EventType.fromWireName(header.type());
        } catch (IllegalArgumentException e) {
            throw new CodecException(e.getMessage(), e);
        }
        if (header.runId().isEmpty()) {
            throw new CodecException("event envelope lacks run_id", null);
        }
        RunEvent event = needsPayload(type) ? codec.decodeEvent(value) : null;
        return new RelayedEvent(type, header.seq(), header.epoch(), header.runId(), event, json, partition, offset, "");
    }

    /** An event already decoded (a rebuild reads every record whole). */
    public static RelayedEvent of(RunEvent event, String json, int partition, long offset) {
        return new RelayedEvent(event.type(), event.seq(), event.epoch(), event.runId(), event, json, partition, offset, "");
    }

    /** The same event, whose live message carries {@code traceparent} so the api's write of it joins the trace. */
    public RelayedEvent traced(String traceparent) {
        return new RelayedEvent(type, seq, epoch, runId, event, json, partition, offset, traceparent);
    }

    /** The run's thread; known only for decoded events, which are the only ones the thread script takes. */
    public @Nullable String threadId() {
        return event == null ? null : event.threadId();
    }

    static boolean needsPayload(EventType type) {
        return type == EventType.RUN_START || type == EventType.MESSAGE_FINAL || type == EventType.ERROR
                || type == EventType.RUN_END || type == EventType.APPROVAL_REQUIRED || type == EventType.APPROVAL_DECIDED;
    }
}
