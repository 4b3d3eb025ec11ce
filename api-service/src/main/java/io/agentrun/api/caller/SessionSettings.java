package io.agentrun.api.caller;

import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrun.auth.session.*}: user session tokens for dashboards, JWTs from an OIDC issuer.
 * Sessions are off while {@code issuer} is blank.
 *
 * @param issuer         the expected {@code iss}
 * @param jwkSetUri      where the issuer publishes its signing keys (JWKS)
 * @param audience       the expected {@code aud}; blank accepts any
 * @param projectsClaim  the claim listing the projects the user may use
 * @param allowedOrigins dashboard origins that may call the API with session tokens (CORS)
 */
@ConfigurationProperties("agentrun.auth.session")
public record SessionSettings(
        @DefaultValue("") String issuer,
        @DefaultValue("") String jwkSetUri,
        @DefaultValue("") String audience,
        @DefaultValue("projects") String projectsClaim,
        @DefaultValue("") List<String> allowedOrigins) {

    public boolean enabled() {
        return !issuer.isBlank();
    }
}
