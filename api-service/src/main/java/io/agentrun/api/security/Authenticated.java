package io.agentrun.api.security;

import java.util.Collection;
import org.springframework.security.authentication.AbstractAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;

/**
 * What a surface's {@code AuthenticationProvider} made of the presented credentials: the principal the handlers take
 * as a parameter ({@link PrincipalArgument}) and the authorities its chain's rules test. It holds no credential.
 */
public final class Authenticated extends AbstractAuthenticationToken {

    private final Object principal;

    public Authenticated(Object principal, Collection<String> authorities) {
        super(AuthorityUtils.createAuthorityList(authorities));
        this.principal = principal;
        setAuthenticated(true);
    }

    @Override
    public Object getPrincipal() {
        return principal;
    }

    @Override
    public Object getCredentials() {
        return "";
    }
}
