package io.agentrun.worker.emit;

/** Events could not be written to Kafka; the run must be tried again elsewhere, not acknowledged. */
public final class EmitFailedException extends RuntimeException {

    public EmitFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
