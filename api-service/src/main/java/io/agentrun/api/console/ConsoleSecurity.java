package io.agentrun.api.console;

import io.agentrun.api.security.Surfaces;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The console's files are open to everyone, as the widget script is: they hold no data.
 * Any method reaches MVC, which answers what the console does not serve with 405. Every read the page makes
 * goes to {@code /api/v1} or {@code /admin/v1} and passes their chains with the credential the person signed in with.
 */
@Configuration(proxyBeanMethods = false)
class ConsoleSecurity {

    @Bean
    @Order(Surfaces.CONSOLE)
    SecurityFilterChain console(HttpSecurity http) throws Exception {
        return Surfaces.stateless(http)
                .securityMatcher("/console", "/console/**")
                .authorizeHttpRequests(requests -> requests.anyRequest().permitAll())
                .build();
    }
}
