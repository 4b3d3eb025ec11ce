package io.agentrun.model.json;

/**
 * The envelope fields needed to route, frame and order an event without binding its payload.
 *
 * @param epoch the claim that wrote it (0: written before epochs existed)
 */
public record EventHeader(String type, long seq, String runId, int epoch) {

    public EventHeader(String type, long seq, String runId) {
        this(type, seq, runId, 0);
    }
}
