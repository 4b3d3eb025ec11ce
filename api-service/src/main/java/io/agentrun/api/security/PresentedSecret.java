package io.agentrun.api.security;

import java.util.List;
import org.springframework.security.authentication.AbstractAuthenticationToken;

/**
 * A credential as an {@code AuthenticationConverter} found it on a request, not yet checked. Its {@code toString}
 * (which Spring Security may log) names only its kind: a key or token must never reach a log or a problem.
 */
public abstract class PresentedSecret extends AbstractAuthenticationToken {

    private final String secret;

    protected PresentedSecret(String secret) {
        super(List.of());
        this.secret = secret;
    }

    /** The key or token as sent. */
    public String secret() {
        return secret;
    }

    @Override
    public Object getCredentials() {
        return secret;
    }

    @Override
    public Object getPrincipal() {
        return getClass().getSimpleName();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[hidden]";
    }
}
