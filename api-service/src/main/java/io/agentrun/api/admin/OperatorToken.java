package io.agentrun.api.admin;

import io.agentrun.api.caller.BearerToken;
import io.agentrun.api.security.Authenticated;
import io.agentrun.api.security.CredentialsRefused;
import io.agentrun.api.security.PresentedSecret;
import io.agentrun.platform.digest.Digests;
import jakarta.servlet.http.HttpServletRequest;
import java.security.MessageDigest;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.core.Authentication;
import org.springframework.security.web.authentication.AuthenticationConverter;

/**
 * The operator token of {@code /admin/v1} ({@code Authorization: Bearer <AGENTRUN_ADMIN_TOKEN>}): found by
 * {@link #convert}, checked by {@link #authenticate}. Both tokens are hashed before the constant-time comparison, so
 * neither the content nor the length of the configured token leaks through timing.
 */
final class OperatorToken implements AuthenticationConverter, AuthenticationProvider {

    static final String OPERATOR = "OPERATOR";

    private final byte[] tokenHash;

    OperatorToken(AdminSettings settings) {
        this.tokenHash = settings.token().isBlank() ? new byte[0] : Digests.sha256(settings.token().strip());
    }

    boolean disabled() {
        return tokenHash.length == 0;
    }

    @Override
    public @Nullable Authentication convert(HttpServletRequest request) {
        String token = BearerToken.of(request);
        return token == null ? null : new Presented(token);
    }

    @Override
    public boolean supports(Class<?> authentication) {
        return Presented.class.isAssignableFrom(authentication);
    }

    @Override
    public Authentication authenticate(Authentication authentication) {
        if (disabled()) {
            throw CredentialsRefused.unauthorized(AdminSecurity.DISABLED);
        }
        if (!MessageDigest.isEqual(tokenHash, Digests.sha256(((Presented) authentication).secret()))) {
            throw CredentialsRefused.unauthorized("the operator token is not valid");
        }
        return new Authenticated(new Operator(), List.of(OPERATOR));
    }

    private static final class Presented extends PresentedSecret {
        Presented(String token) {
            super(token);
        }
    }
}
