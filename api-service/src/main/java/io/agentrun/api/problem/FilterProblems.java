package io.agentrun.api.problem;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.servlet.HandlerExceptionResolver;

/**
 * Makes the exception-to-status table ({@link ProblemHandler}, through MVC's {@link HandlerExceptionResolver}) answer
 * for the filters too: what {@link RequestShape} or a security chain throws or refuses (Redis down while a key is
 * looked up, a rate limit) leaves as the same problem+json as from a handler, not as the container's 500. Exceptions
 * from handlers never get here: the dispatcher resolves them itself and wraps the rest in a {@link ServletException}.
 */
public final class FilterProblems extends OncePerRequestFilter {

    private final HandlerExceptionResolver exceptions;

    FilterProblems(HandlerExceptionResolver exceptions) {
        this.exceptions = exceptions;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        try {
            chain.doFilter(request, response);
        } catch (RuntimeException e) {
            if (response.isCommitted()) {
                throw e;
            }
            answer(request, response, e);
        }
    }

    /** Answers {@code e} as its problem; rethrows what the table does not cover. */
    public void answer(HttpServletRequest request, HttpServletResponse response, RuntimeException e) {
        if (exceptions.resolveException(request, response, null, e) == null) {
            throw e;
        }
    }
}
