package io.agentrun.worker.cancel;

/** Unwinds a run that was cancelled, timed out, or is stopped by shutdown. */
public final class RunCancelledException extends RuntimeException {

    private final CancelToken.Reason reason;

    public RunCancelledException(CancelToken.Reason reason) {
        super("run stopped: " + reason, null, false, false);
        this.reason = reason;
    }

    public CancelToken.Reason reason() {
        return reason;
    }
}
