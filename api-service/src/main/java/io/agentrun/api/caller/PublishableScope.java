package io.agentrun.api.caller;

import io.agentrun.api.problem.Echo;
import io.agentrun.api.security.Refusal;
import java.util.function.Supplier;
import org.springframework.security.authorization.AuthorizationDecision;
import org.springframework.security.authorization.AuthorizationManager;
import org.springframework.security.authorization.AuthorizationResult;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.web.access.intercept.RequestAuthorizationContext;
import org.springframework.security.web.servlet.util.matcher.PathPatternRequestMatcher;

/** A publishable key on a public route: granted unless the route names an agent outside the key's scope. */
final class PublishableScope implements AuthorizationManager<RequestAuthorizationContext> {

    private static final PathPatternRequestMatcher AGENT_ROUTE = PathPatternRequestMatcher.pathPattern("/api/v1/agents/{agentId}/**");

    @Override
    public AuthorizationResult authorize(Supplier<? extends Authentication> authentication, RequestAuthorizationContext context) {
        Authentication caller = authentication.get();
        if (!has(caller, Caller.Kind.PUBLISHABLE_KEY.name())) {
            return new AuthorizationDecision(false);
        }
        String agentId = AGENT_ROUTE.matcher(context.getRequest()).getVariables().get("agentId");
        if (agentId != null && !has(caller, ApiKeys.AGENT + agentId)) {
            return new Refusal("this publishable key may not run agent '" + Echo.of(agentId) + "'");
        }
        return new AuthorizationDecision(true);
    }

    private static boolean has(Authentication caller, String authority) {
        for (GrantedAuthority granted : caller.getAuthorities()) {
            if (authority.equals(granted.getAuthority())) {
                return true;
            }
        }
        return false;
    }
}
