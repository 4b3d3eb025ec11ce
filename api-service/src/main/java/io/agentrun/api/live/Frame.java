package io.agentrun.api.live;

import org.jspecify.annotations.Nullable;

/**
 * One event as an api node forwards it: its seq and type (for SSE framing and order), the envelope as is,
 * and, for live messages the relay traced (run_start, run_end), the relay's W3C traceparent.
 */
public record Frame(long seq, String type, String json, @Nullable String traceparent) {

    public Frame(long seq, String type, String json) {
        this(seq, type, json, null);
    }

    public boolean isRunEnd() {
        return "run_end".equals(type);
    }
}
