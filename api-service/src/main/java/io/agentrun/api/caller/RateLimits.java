package io.agentrun.api.caller;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * A publishable key's rate limit, taken once its request is authenticated and authorized (a refused request costs
 * the key nothing, as before the chains). {@code rate_limited} is thrown to the filters' problem table.
 */
final class RateLimits extends OncePerRequestFilter {

    private final RateLimiter limiter;

    RateLimits(RateLimiter limiter) {
        this.limiter = limiter;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        Authentication caller = SecurityContextHolder.getContext().getAuthentication();
        if (caller != null && caller.getDetails() instanceof StoredKey key) {
            limiter.take(key, request.getRemoteAddr());
        }
        chain.doFilter(request, response);
    }
}
