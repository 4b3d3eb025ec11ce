package io.agentrun.api.caller;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import org.springframework.web.filter.OncePerRequestFilter;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.api.problem.ProblemResponses;

/**
 * CORS for {@code /api/v1}: a browser may call the API from an origin some publishable key (or the session
 * configuration) allows. Preflights from other origins are refused with 403 and no CORS headers; allowed
 * ones are answered echoing the origin — never {@code *} — and every response to an allowed origin carries
 * the same headers, so the page can read errors too. Whether the request's own key allows the origin is
 * checked later, by {@link ApiKeys}. Our own filter, placed in the {@code /api/v1} chains where Spring's CORS filter
 * would be: the allowed origins change at run time with the publishable keys (and our wildcard is stricter than
 * Spring's origin patterns), a refused preflight is a problem+json 403, and a request from a foreign origin goes on
 * without CORS headers so that its credentials are refused with their own problem, where Spring's
 * {@code DefaultCorsProcessor} would answer a bare 403 for both.
 */
final class BrowserAccess extends OncePerRequestFilter {

    static final String ALLOWED_HEADERS = "content-type, x-api-key, x-project-id, last-event-id, authorization, accept, idempotency-key";
    static final String EXPOSED_HEADERS = "x-thread-id, x-run-id, retry-after";

    private final AllowedOrigins origins;
    private final List<String> sessionOrigins;
    private final ProblemResponses problems;

    BrowserAccess(AllowedOrigins origins, List<String> sessionOrigins, ProblemResponses problems) {
        this.origins = origins;
        this.sessionOrigins = sessionOrigins;
        this.problems = problems;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String origin = request.getHeader(ApiCredentials.ORIGIN);
        if (origin == null) {
            chain.doFilter(request, response);
            return;
        }
        boolean allowed = AllowedOrigins.allows(sessionOrigins, origin) || origins.allowedByAnyKey(origin);
        boolean preflight = "OPTIONS".equals(request.getMethod()) && request.getHeader("Access-Control-Request-Method") != null;
        response.addHeader("Vary", "Origin");
        if (allowed) {
            response.setHeader("Access-Control-Allow-Origin", origin);
            response.setHeader("Access-Control-Expose-Headers", EXPOSED_HEADERS);
        }
        if (!preflight) {
            chain.doFilter(request, response);
            return;
        }
        String method = request.getHeader("Access-Control-Request-Method");
        if (!allowed || !("POST".equals(method) || "GET".equals(method))) {
            response.setStatus(ErrorCode.FORBIDDEN.status().value());
            response.setContentType(ProblemResponses.PROBLEM_JSON.toString());
            response.getOutputStream().write(problems.body(ErrorCode.FORBIDDEN,
                    allowed ? "only GET and POST are allowed from browsers" : "this origin is not allowed to call the API",
                    request.getRequestURI()));
            return;
        }
        response.setStatus(HttpServletResponse.SC_NO_CONTENT);
        response.setHeader("Access-Control-Allow-Methods", "GET, POST");
        response.setHeader("Access-Control-Allow-Headers", ALLOWED_HEADERS);
        response.setHeader("Access-Control-Max-Age", "600");
    }
}
