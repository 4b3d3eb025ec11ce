package io.agentrun.api.upload;

import io.agentrun.api.security.Surfaces;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The local store's signed URLs ({@code PUT} and {@code GET /files/**}): no key, the signature is the permission. The
 * chain lets every method through to {@link LocalFileController}, which checks the signature against the blob path,
 * method, expiry and content type it serves (403 {@code forbidden} when it does not hold, 404 for {@code /files} itself
 * or with the s3 back end); MVC answers other methods with 405, as before the chains. A handler added under
 * {@code /files} must check a signature the same way.
 */
@Configuration(proxyBeanMethods = false)
class FilesSecurity {

    @Bean
    @Order(Surfaces.FILES)
    SecurityFilterChain files(HttpSecurity http) throws Exception {
        return Surfaces.stateless(http)
                .securityMatcher("/files/**")
                .authorizeHttpRequests(requests -> requests.anyRequest().permitAll())
                .build();
    }
}
