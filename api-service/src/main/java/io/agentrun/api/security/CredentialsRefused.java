package io.agentrun.api.security;

import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.ErrorCode;
import org.springframework.security.core.AuthenticationException;

/**
 * Credentials an {@code AuthenticationProvider} refuses, with the problem the caller gets: 401 {@code unauthorized}
 * for missing or unknown credentials, 403 {@code forbidden} for valid ones used beyond what they grant (another
 * project, a secret key from a browser, a publishable key off its origins). The detail is shown to the caller, so it
 * never holds a credential.
 */
public final class CredentialsRefused extends AuthenticationException {

    private final ErrorCode code;

    private CredentialsRefused(ErrorCode code, String detail) {
        super(detail);
        this.code = code;
    }

    public static CredentialsRefused unauthorized(String detail) {
        return new CredentialsRefused(ErrorCode.UNAUTHORIZED, detail);
    }

    public static CredentialsRefused forbidden(String detail) {
        return new CredentialsRefused(ErrorCode.FORBIDDEN, detail);
    }

    ApiProblem problem() {
        return new ApiProblem(code, getMessage());
    }
}
