package io.agentrun.worker.agent;

import java.time.Instant;

/**
 * The run waits for a person's decision on a tool call: its {@code approval_required} (with the checkpoint the run goes
 * on from) is emitted, and no {@code run_end} follows here. The worker lets the run go once Kafka has the event.
 */
public final class RunPausedException extends RuntimeException {

    private final String toolCallId;
    private final Instant deadline;

    RunPausedException(String toolCallId, Instant deadline) {
        super("the run waits for a decision on tool call " + toolCallId, null, false, false);
        this.toolCallId = toolCallId;
        this.deadline = deadline;
    }

    public String toolCallId() {
        return toolCallId;
    }

    public Instant deadline() {
        return deadline;
    }
}
