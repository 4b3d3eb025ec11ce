package io.agentrun.api.problem;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * An error to report to the caller as {@code application/problem+json}. The detail is shown to the
 * caller, so it never contains secrets or internals.
 */
public final class ApiProblem extends RuntimeException {

    private final ErrorCode code;
    private @Nullable Duration retryAfter;
    private final java.util.Map<String, String> headers = new java.util.LinkedHashMap<>(1);

    public ApiProblem(ErrorCode code, String detail) {
        super(detail, null, false, false);
        this.code = code;
    }

    public ErrorCode code() {
        return code;
    }

    public String detail() {
        return getMessage();
    }

    /** Asks the client to wait this long before trying again ({@code Retry-After}, whole seconds, rounded up). */
    public ApiProblem retryAfter(Duration wait) {
        this.retryAfter = wait;
        return this;
    }

    public @Nullable Duration retryAfter() {
        return retryAfter;
    }

    /** A response header to send with the problem (e.g. {@code x-run-id} of a refused run); never a secret. */
    public ApiProblem header(String name, String value) {
        headers.put(name, value);
        return this;
    }

    public java.util.Map<String, String> headers() {
        return java.util.Collections.unmodifiableMap(headers);
    }
}
