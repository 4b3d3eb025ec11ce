package io.agentrun.api.caller;

import io.agentrun.api.problem.ProblemResponses;
import io.agentrun.api.security.PrincipalArgument;
import io.agentrun.api.security.ProblemAnswers;
import io.agentrun.api.security.Surfaces;
import io.agentrun.platform.redis.RedisConnections;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.authentication.ProviderManager;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.observation.SecurityObservationSettings;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.access.intercept.AuthorizationFilter;
import org.springframework.security.web.authentication.AnonymousAuthenticationFilter;
import org.springframework.security.web.servlet.util.matcher.PathPatternRequestMatcher;
import org.springframework.security.web.util.matcher.AndRequestMatcher;
import org.springframework.security.web.util.matcher.RequestMatcher;
import org.springframework.web.filter.CorsFilter;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * The {@code /api/v1} surface as two chains: browser pages with publishable keys (the {@link PublicSurface} routes,
 * the agents in the key's scope, from its origins, within its rate limit), then servers and dashboards with secret
 * keys and session tokens (every route of their project). Both answer CORS with {@link BrowserAccess} before looking
 * at credentials, so a preflight needs none and a page on an allowed origin can read every refusal.
 */
@Configuration(proxyBeanMethods = false)
class ApiSecurity {

    private static final RequestMatcher API = PathPatternRequestMatcher.pathPattern("/api/v1/**");
    private static final String SEND_KEY = "send your API key in the x-api-key header";
    private static final String PUBLISHABLE_ONLY = "publishable keys may only run their agents and join their runs";

    private final ProblemAnswers answers;
    private final BrowserAccess browsers;
    private final ProviderManager authentication;
    private final ApiCredentials credentials;

    ApiSecurity(ProblemAnswers answers, AllowedOrigins origins, KeyStore keys, AuthSettings settings, SessionSettings sessions,
            ProblemResponses problems) {
        this.answers = answers;
        this.browsers = new BrowserAccess(origins, sessions.allowedOrigins(), problems);
        List<AuthenticationProvider> providers = new ArrayList<>(List.of(new ApiKeys(keys, settings)));
        if (sessions.enabled()) {
            providers.add(new SessionTokens(sessions));
        }
        this.authentication = new ProviderManager(providers);
        this.credentials = new ApiCredentials(sessions.enabled());
    }

    @Bean
    @Order(Surfaces.BROWSER)
    SecurityFilterChain browser(HttpSecurity http, RedisConnections redis,
            @Qualifier("requestMappingHandlerMapping") RequestMappingHandlerMapping handlers) throws Exception {
        return surface(http, new AndRequestMatcher(API, ApiCredentials::publishable))
                .authorizeHttpRequests(requests -> requests
                        .requestMatchers(new PublicRoutes(handlers)).access(new PublishableScope())
                        .anyRequest().denyAll())
                .addFilterAfter(new RateLimits(new RateLimiter(redis)), AuthorizationFilter.class)
                .build();
    }

    @Bean
    @Order(Surfaces.API)
    SecurityFilterChain api(HttpSecurity http) throws Exception {
        return surface(http, API)
                .authorizeHttpRequests(requests -> requests
                        .anyRequest().hasAnyAuthority(Caller.Kind.SECRET_KEY.name(), Caller.Kind.SESSION.name()))
                .build();
    }

    /**
     * Spring Security's own observations off: a span and a timer around every filter of the chain, and around each
     * authentication and authorization, on every request — ~8 % of an api node's CPU in the bench's runs phase (JFR,
     * docs/performance.md, issue 42). A request is still observed whole ({@code http.server.requests} and its span),
     * and refusals are counted by the problem handler.
     */
    @Bean
    static SecurityObservationSettings noSecurityObservations() {
        return SecurityObservationSettings.noObservations();
    }

    /** Handlers take the authenticated {@link Caller} as a parameter. */
    @Bean
    static WebMvcConfigurer callerArgument() {
        return PrincipalArgument.of(Caller.class);
    }

    private HttpSecurity surface(HttpSecurity http, RequestMatcher matcher) throws Exception {
        return Surfaces.stateless(http)
                .securityMatcher(matcher)
                .addFilterAt(browsers, CorsFilter.class)
                .addFilterBefore(Surfaces.authenticating(authentication, credentials, answers), AnonymousAuthenticationFilter.class)
                .exceptionHandling(exceptions -> exceptions
                        .authenticationEntryPoint(answers.unauthorized(SEND_KEY))
                        .accessDeniedHandler(answers.forbidden(PUBLISHABLE_ONLY)));
    }
}
