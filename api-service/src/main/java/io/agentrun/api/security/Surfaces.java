package io.agentrun.api.security;

import org.springframework.security.authentication.AuthenticationManager;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.web.authentication.AuthenticationConverter;
import org.springframework.security.web.authentication.AuthenticationFilter;
import org.springframework.security.web.context.NullSecurityContextRepository;

/**
 * What every surface's {@code SecurityFilterChain} shares, and their order: the first chain whose matcher fits a
 * request is the only one applied, and {@link SecurityConfiguration#closed} (last) denies whatever none admitted.
 */
public final class Surfaces {

    /** Publishable keys: browser pages on their allowed origins; before {@link #API}, which matches the same paths. */
    public static final int BROWSER = 1;
    /** Secret keys and session tokens on {@code /api/v1}. */
    public static final int API = 2;
    public static final int ADMIN = 3;
    public static final int FILES = 4;
    static final int OPEN = 5;
    /** The console's static files ({@code /console/**}): open, GET only. */
    public static final int CONSOLE = 6;

    private Surfaces() {
    }

    /**
     * Stateless: credentials come with every request in headers, so there is no session, no saved security context
     * (nothing to store or look up per request), no saved request to replay after a login, no logout. CSRF protection
     * is off because no credential is ambient: a browser attaches no cookie or basic-auth to a cross-site request, and
     * an {@code x-api-key} or {@code Authorization} header it can only send after a CORS preflight we answer.
     * Spring Security's response headers are off: each handler sets its own ({@code Cache-Control} on problems and
     * SSE, {@code nosniff} on the widget, the docs and served files), and API responses keep exactly those.
     */
    public static HttpSecurity stateless(HttpSecurity http) throws Exception {
        return http.sessionManagement(session -> session.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
                .securityContext(context -> context.securityContextRepository(new NullSecurityContextRepository()))
                .requestCache(AbstractHttpConfigurer::disable)
                .csrf(AbstractHttpConfigurer::disable)
                .headers(AbstractHttpConfigurer::disable)
                .logout(AbstractHttpConfigurer::disable)
                .servletApi(AbstractHttpConfigurer::disable);
    }

    /**
     * Authenticates what {@code converter} finds on a request with {@code manager}: on success the request goes on to
     * authorization and its handler (no redirect, nothing saved); a refusal is answered as its problem.
     */
    public static AuthenticationFilter authenticating(AuthenticationManager manager, AuthenticationConverter converter,
            ProblemAnswers answers) {
        AuthenticationFilter filter = new AuthenticationFilter(manager, converter);
        filter.setSuccessHandler((request, response, authentication) -> { });
        filter.setFailureHandler(answers.refused());
        filter.setSecurityContextRepository(new NullSecurityContextRepository());
        return filter;
    }
}
