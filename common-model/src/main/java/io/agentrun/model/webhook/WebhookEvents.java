package io.agentrun.model.webhook;

import io.agentrun.model.event.RunStatus;
import java.util.List;
import java.util.Optional;

/** The event types an endpoint can subscribe to: how a run ended, and a run that waits for a person's approval. */
public final class WebhookEvents {

    public static final String RUN_COMPLETED = "run.completed";
    public static final String RUN_FAILED = "run.failed";
    public static final String RUN_CANCELLED = "run.cancelled";
    public static final String RUN_TIMED_OUT = "run.timed_out";
    /** A run paused for a person's approval of a tool call ({@code approval_required}). */
    public static final String RUN_WAITING = "run.waiting";
    public static final List<String> ALL = List.of(RUN_COMPLETED, RUN_FAILED, RUN_CANCELLED, RUN_TIMED_OUT, RUN_WAITING);

    private WebhookEvents() {
    }

    /** The event a run's end is, if it ended. */
    public static Optional<String> of(RunStatus status) {
        return switch (status) {
            case COMPLETED -> Optional.of(RUN_COMPLETED);
            case FAILED -> Optional.of(RUN_FAILED);
            case CANCELLED -> Optional.of(RUN_CANCELLED);
            case TIMED_OUT -> Optional.of(RUN_TIMED_OUT);
            default -> Optional.empty();
        };
    }
}
