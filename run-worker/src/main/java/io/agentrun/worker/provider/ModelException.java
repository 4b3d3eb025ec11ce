package io.agentrun.worker.provider;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The model failed. Typed by what the run loop can do: {@link #retryable()} failures (429, 5xx, timeouts,
 * connection resets) may succeed on another try, after {@link #retryAfter()} when the provider said so;
 * the others (400, 401, 404, a malformed stream) will not. {@code code} is the stable code of the
 * {@code error} event; the message is shown to the client and never contains secrets.
 */
public final class ModelException extends RuntimeException {

    private final String code;
    private final boolean retryable;
    private final @Nullable Duration retryAfter;

    public ModelException(String code, String message, boolean retryable) {
        this(code, message, retryable, null);
    }

    public ModelException(String code, String message, boolean retryable, @Nullable Duration retryAfter) {
        super(message);
        this.code = code;
        this.retryable = retryable;
        this.retryAfter = retryAfter;
    }

    public String code() {
        return code;
    }

    public boolean retryable() {
        return retryable;
    }

    public @Nullable Duration retryAfter() {
        return retryAfter;
    }
}
