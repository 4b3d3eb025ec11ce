package io.agentrun.api.security;

import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.api.problem.FilterProblems;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.security.authorization.AuthorizationDeniedException;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.access.AccessDeniedHandler;
import org.springframework.security.web.authentication.AuthenticationFailureHandler;
import org.springframework.security.web.firewall.RequestRejectedException;
import org.springframework.security.web.firewall.RequestRejectedHandler;

/**
 * The chains' refusals, answered by the api's one exception-to-status table ({@code ProblemHandler}, through
 * {@link FilterProblems}): the same problem+json body, {@code Cache-Control}, codes and WARN log line as a refusal
 * from a handler, whether Spring Security's entry point, access-denied handler, authentication failure handler or
 * firewall gives it.
 */
public final class ProblemAnswers implements RequestRejectedHandler {

    private final FilterProblems problems;

    ProblemAnswers(FilterProblems problems) {
        this.problems = problems;
    }

    /** No credentials (anonymous): 401 saying what to send. */
    public AuthenticationEntryPoint unauthorized(String whatToSend) {
        return (request, response, e) -> answer(request, response, problemOf(e, whatToSend));
    }

    /** Credentials the surface's provider refused: {@link CredentialsRefused}'s own problem. */
    public AuthenticationFailureHandler refused() {
        return (request, response, e) -> answer(request, response, problemOf(e, "the credentials are not valid"));
    }

    /** Valid credentials on an endpoint they do not open: 403, with a {@link Refusal}'s detail when a rule gave one. */
    public AccessDeniedHandler forbidden(String detail) {
        return (request, response, e) -> answer(request, response, new ApiProblem(ErrorCode.FORBIDDEN,
                e instanceof AuthorizationDeniedException denied && denied.getAuthorizationResult() instanceof Refusal refusal
                        ? refusal.detail() : detail));
    }

    /** The firewall's refusal (an encoded '%', a method outside HTTP's): the table's entry for it. */
    @Override
    public void handle(HttpServletRequest request, HttpServletResponse response, RequestRejectedException e) {
        problems.answer(request, response, e);
    }

    void answer(HttpServletRequest request, HttpServletResponse response, ApiProblem problem) {
        problems.answer(request, response, problem);
    }

    private static ApiProblem problemOf(AuthenticationException e, String otherwise) {
        return e instanceof CredentialsRefused refused ? refused.problem() : new ApiProblem(ErrorCode.UNAUTHORIZED, otherwise);
    }
}
