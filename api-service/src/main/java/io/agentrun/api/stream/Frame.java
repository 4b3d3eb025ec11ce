package io.agentrun.api.stream;

/** One event as an api node forwards it: its seq and type (for SSE framing and order) and the envelope as is. */
public record Frame(long seq, String type, String json) {

    public boolean isRunEnd() {
        return "run_end".equals(type);
    }
}
