package io.agentrun.api.run;

import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.api.problem.Echo;
import org.jspecify.annotations.Nullable;

/** What a new run on a thread does while another run holds it: {@code ?if_busy=reject|enqueue|interrupt}. */
public enum IfBusy {
    /** Refused with 409 {@code thread_busy} (the default). */
    REJECT,
    /** Waits for the active run, and any waiting before it, to end; then starts. */
    ENQUEUE,
    /** Cancels the active run (its partial answer is kept, as with a cancel) and starts next, ahead of any waiting run. */
    INTERRUPT;

    public static IfBusy parse(@Nullable String value) {
        if (value == null || value.isBlank()) {
            return REJECT;
        }
        return switch (value) {
            case "reject" -> REJECT;
            case "enqueue" -> ENQUEUE;
            case "interrupt" -> INTERRUPT;
            default -> throw new ApiProblem(ErrorCode.INVALID_REQUEST,
                    "if_busy must be 'reject' (default), 'enqueue' or 'interrupt', not '" + Echo.of(value) + "'");
        };
    }
}
