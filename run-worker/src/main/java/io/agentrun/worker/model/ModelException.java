package io.agentrun.worker.model;

/** The model failed. {@code code} is the stable code of the {@code error} event the client sees. */
public final class ModelException extends RuntimeException {

    private final String code;
    private final boolean retryable;

    public ModelException(String code, String message, boolean retryable) {
        super(message);
        this.code = code;
        this.retryable = retryable;
    }

    public String code() {
        return code;
    }

    public boolean retryable() {
        return retryable;
    }
}
