package io.agentrun.api.problem;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses, before any handler runs, a request whose meaning would depend on who reads it: path parameters
 * ({@code ;}), a query parameter given twice, or one of the headers we read given twice or with bytes outside printable
 * ASCII (Tomcat hands such bytes over as ISO-8859-1 characters, which a gateway may read as UTF-8). Of two
 * {@code x-project-id} headers a gateway may check the last and we would use the first. A filter before the security
 * chains, so such a request is refused as such (400) before its credentials are looked at; {@link FilterProblems}
 * answers what it throws.
 */
final class RequestShape extends OncePerRequestFilter {

    /** Every request header the api reads a value from. */
    static final List<String> READ_HEADERS = List.of("x-api-key", "x-project-id", "authorization", "origin",
            "last-event-id", "content-type", "access-control-request-method", "idempotency-key");

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        refuseAmbiguous(request);
        chain.doFilter(request, response);
    }

    private static void refuseAmbiguous(HttpServletRequest request) {
        if (request.getRequestURI().indexOf(';') >= 0) {
            // Tomcat and Spring drop ";name=value" from a segment, a proxy routing on the path may not
            throw invalid("path parameters (';') are not accepted");
        }
        for (Map.Entry<String, String[]> parameter : request.getParameterMap().entrySet()) {
            if (parameter.getValue().length > 1) {
                throw invalid("the query parameter '" + Echo.of(parameter.getKey()) + "' is given "
                        + parameter.getValue().length + " times; give it once");
            }
        }
        for (String name : READ_HEADERS) {
            List<String> values = Collections.list(request.getHeaders(name));
            if (values.size() > 1) {
                throw invalid("the " + name + " header is given " + values.size() + " times; give it once");
            }
            if (!values.isEmpty() && !printableAscii(values.getFirst())) {
                throw invalid("the " + name + " header must contain only printable ASCII characters");
            }
        }
    }

    private static boolean printableAscii(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                return false;
            }
        }
        return true;
    }

    private static ApiProblem invalid(String detail) {
        return new ApiProblem(ErrorCode.INVALID_REQUEST, detail);
    }
}
