package io.agentrun.api.caller;

import io.agentrun.api.problem.Echo;
import io.agentrun.api.security.Authenticated;
import io.agentrun.api.security.CredentialsRefused;
import java.util.ArrayList;
import java.util.List;
import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.core.Authentication;
import org.springframework.security.oauth2.core.DelegatingOAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtClaimValidator;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.security.oauth2.jwt.JwtValidators;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;

/**
 * User session tokens: {@code Authorization: Bearer <JWT>} signed by the configured OIDC issuer, checked
 * with Spring Security's decoder against the issuer's JWKS (signature, {@code exp}/{@code nbf}, {@code iss},
 * {@code aud} when configured). The token's projects claim must list the request's {@code x-project-id}.
 */
final class SessionTokens implements AuthenticationProvider {

    private final NimbusJwtDecoder decoder;
    private final String projectsClaim;

    SessionTokens(SessionSettings settings) {
        this.decoder = NimbusJwtDecoder.withJwkSetUri(settings.jwkSetUri()).build();
        List<OAuth2TokenValidator<Jwt>> validators = new ArrayList<>();
        validators.add(JwtValidators.createDefaultWithIssuer(settings.issuer()));
        if (!settings.audience().isBlank()) {
            validators.add(new JwtClaimValidator<List<String>>("aud",
                    audience -> audience != null && audience.contains(settings.audience())));
        }
        decoder.setJwtValidator(new DelegatingOAuth2TokenValidator<>(validators));
        this.projectsClaim = settings.projectsClaim();
    }

    @Override
    public boolean supports(Class<?> authentication) {
        return PresentedSession.class.isAssignableFrom(authentication);
    }

    @Override
    public Authentication authenticate(Authentication authentication) {
        PresentedSession presented = (PresentedSession) authentication;
        String projectId = ApiCredentials.requiredProject(presented.projectId());
        Jwt jwt;
        try {
            jwt = decoder.decode(presented.secret());
        } catch (JwtException e) {
            // The decoder's message may quote claims; the caller only learns that the token is not accepted.
            boolean expired = e.getMessage() != null && e.getMessage().contains("expired");
            throw CredentialsRefused.unauthorized(expired ? "the session token has expired" : "the session token is not valid");
        }
        List<String> projects = jwt.hasClaim(projectsClaim) ? jwt.getClaimAsStringList(projectsClaim) : List.of();
        if (projects == null || !projects.contains(projectId)) {
            throw CredentialsRefused.forbidden("this session may not use project " + Echo.of(projectId));
        }
        Caller caller = new Caller(projectId, Caller.Kind.SESSION, "session", null, null);
        return new Authenticated(caller, List.of(caller.kind().name()));
    }
}
