package io.agentrun.api.security;

import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.ErrorCode;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;
import org.springframework.web.util.ServletRequestPathUtils;

/**
 * The answer of the last chain, which admits nothing: an endpoint that no surface admits is 403 {@code forbidden}
 * (closed until someone adds it to a surface), and a path that no controller maps stays 404 {@code not_found}, as it
 * is for everyone: nothing is there to protect, and the refusal says no more than the 404 would.
 */
final class NoSurface implements AuthenticationEntryPoint {

    private final RequestMappingHandlerMapping handlers;
    private final ProblemAnswers answers;

    NoSurface(RequestMappingHandlerMapping handlers, ProblemAnswers answers) {
        this.handlers = handlers;
        this.answers = answers;
    }

    @Override
    public void commence(HttpServletRequest request, HttpServletResponse response, AuthenticationException e) throws ServletException {
        answers.answer(request, response, mapped(request)
                ? new ApiProblem(ErrorCode.FORBIDDEN, "no surface admits this endpoint")
                : new ApiProblem(ErrorCode.NOT_FOUND, "no endpoint at " + request.getRequestURI()));
    }

    /** Whether a controller maps the path, for this method or another (the mapping refuses those by throwing). */
    private boolean mapped(HttpServletRequest request) throws ServletException {
        ServletRequestPathUtils.parseAndCache(request);
        try {
            return handlers.getHandler(request) != null;
        } catch (ServletException mappedForOtherRequests) {
            return true;
        } catch (Exception e) {
            throw new ServletException(e);
        }
    }
}
