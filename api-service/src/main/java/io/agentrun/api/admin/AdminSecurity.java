package io.agentrun.api.admin;

import io.agentrun.api.security.PrincipalArgument;
import io.agentrun.api.security.ProblemAnswers;
import io.agentrun.api.security.Surfaces;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.security.authentication.ProviderManager;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.authentication.AnonymousAuthenticationFilter;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/** The operators' surface, {@code /admin/v1}: every route needs the operator token; no token configured, none opens. */
@Configuration(proxyBeanMethods = false)
class AdminSecurity {

    static final String DISABLED = "the admin API is disabled: set AGENTRUN_ADMIN_TOKEN to enable it";

    @Bean
    @Order(Surfaces.ADMIN)
    SecurityFilterChain admin(HttpSecurity http, AdminSettings settings, ProblemAnswers answers) throws Exception {
        OperatorToken token = new OperatorToken(settings);
        return Surfaces.stateless(http)
                .securityMatcher("/admin/v1/**")
                .addFilterBefore(Surfaces.authenticating(new ProviderManager(token), token, answers), AnonymousAuthenticationFilter.class)
                .authorizeHttpRequests(requests -> requests.anyRequest().hasAuthority(OperatorToken.OPERATOR))
                .exceptionHandling(exceptions -> exceptions
                        .authenticationEntryPoint(answers.unauthorized(token.disabled() ? DISABLED
                                : "send the operator token as 'Authorization: Bearer <token>'")))
                .build();
    }

    /** Handlers take {@link Operator} as a parameter: proof of the token. */
    @Bean
    static WebMvcConfigurer operatorArgument() {
        return PrincipalArgument.of(Operator.class);
    }
}
