package io.agentrun.api.problem;

/**
 * An error to report to the caller as {@code application/problem+json}. The detail is shown to the
 * caller, so it never contains secrets or internals.
 */
public final class ApiProblem extends RuntimeException {

    private final ErrorCode code;

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
}
