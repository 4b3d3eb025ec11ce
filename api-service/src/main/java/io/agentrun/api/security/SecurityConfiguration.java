package io.agentrun.api.security;

import io.agentrun.api.problem.FilterProblems;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * The surfaces without credentials, and the rule for everything else. Each other surface declares its own chain
 * next to its handlers ({@code auth}: {@code /api/v1}, {@code admin}: {@code /admin/v1}, {@code upload}: signed file
 * URLs); docs/architecture.md has the table of every route and who may call it.
 */
@Configuration(proxyBeanMethods = false)
@EnableWebSecurity
class SecurityConfiguration {

    @Bean
    ProblemAnswers problemAnswers(FilterProblems problems) {
        return new ProblemAnswers(problems);
    }

    /**
     * Open to everyone, as the README is: the API description and its UI, the widget script, health, info and
     * metrics for probes and scrapers, and the container's error page. Any method reaches MVC, which answers what
     * these handlers do not serve with 405.
     */
    @Bean
    @Order(Surfaces.OPEN)
    SecurityFilterChain open(HttpSecurity http) throws Exception {
        return Surfaces.stateless(http)
                .securityMatcher("/v3/api-docs", "/v3/api-docs.yaml", "/docs", "/webjars/**", "/embed/v1/widget.js",
                        "/actuator", "/actuator/health/**", "/actuator/info", "/actuator/prometheus", "/error")
                .authorizeHttpRequests(requests -> requests.anyRequest().permitAll())
                .build();
    }

    /** Deny by default: a request no surface above admitted is refused, so a new endpoint is closed until a chain opens it. */
    @Bean
    @Order(Ordered.LOWEST_PRECEDENCE)
    SecurityFilterChain closed(HttpSecurity http, @Qualifier("requestMappingHandlerMapping") RequestMappingHandlerMapping handlers,
            ProblemAnswers answers) throws Exception {
        return Surfaces.stateless(http)
                .authorizeHttpRequests(requests -> requests.anyRequest().denyAll())
                .exceptionHandling(exceptions -> exceptions.authenticationEntryPoint(new NoSurface(handlers, answers)))
                .build();
    }
}
