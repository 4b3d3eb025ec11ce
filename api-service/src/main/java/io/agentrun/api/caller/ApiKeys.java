package io.agentrun.api.caller;

import io.agentrun.api.problem.Echo;
import io.agentrun.api.security.Authenticated;
import io.agentrun.api.security.CredentialsRefused;
import io.agentrun.model.admin.KeyKind;
import java.util.ArrayList;
import java.util.List;
import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.core.Authentication;

/**
 * Authenticates an {@code x-api-key} ({@link KeyStore}: hashed, compared in constant time):
 * <ul>
 * <li>a secret key with {@code x-project-id}: the whole project, never from a browser;</li>
 * <li>a publishable key ({@code x-project-id} optional, must match) from one of its allowed origins. What it may call
 *     (the {@link PublicSurface} handlers, the agents in its scope) is its chain's authorization, its rate limit the
 *     {@link RateLimits} filter after it.</li>
 * </ul>
 * Unknown keys are 401; valid ones used beyond what they grant are 403.
 */
final class ApiKeys implements AuthenticationProvider {

    /** The authority of an agent a publishable key may run. */
    static final String AGENT = "agent:";
    private static final int MAX_KEY_LENGTH = 256;

    private final KeyStore keys;
    private final AuthSettings settings;

    ApiKeys(KeyStore keys, AuthSettings settings) {
        this.keys = keys;
        this.settings = settings;
    }

    @Override
    public boolean supports(Class<?> authentication) {
        return PresentedKey.class.isAssignableFrom(authentication);
    }

    @Override
    public Authentication authenticate(Authentication authentication) {
        PresentedKey presented = (PresentedKey) authentication;
        String key = presented.secret();
        StoredKey stored = key.length() > MAX_KEY_LENGTH ? null : keys.find(key).orElse(null);
        if (stored == null) {
            throw CredentialsRefused.unauthorized("the API key is not valid");
        }
        return stored.kind() == KeyKind.SECRET ? secret(stored, presented) : publishable(stored, presented);
    }

    private Authentication secret(StoredKey stored, PresentedKey presented) {
        requireProject(stored, ApiCredentials.requiredProject(presented.projectId()));
        if (settings.refuseSecretKeysFromBrowsers() && presented.origin() != null) {
            throw CredentialsRefused.forbidden("secret keys must not be used from browsers; use a publishable key");
        }
        Caller caller = Caller.secret(stored.projectId(), stored.label());
        return new Authenticated(caller, List.of(caller.kind().name()));
    }

    private static Authentication publishable(StoredKey stored, PresentedKey presented) {
        String projectId = presented.projectId();
        if (projectId != null && !projectId.isBlank()) {
            requireProject(stored, projectId.strip());
        }
        String origin = presented.origin();
        if (origin == null || !AllowedOrigins.allows(stored.allowedOrigins(), origin)) {
            throw CredentialsRefused.forbidden(origin == null
                    ? "a publishable key works only from a browser page on one of its allowed origins"
                    : "this publishable key is not allowed on " + Echo.of(origin));
        }
        Caller caller = new Caller(stored.projectId(), Caller.Kind.PUBLISHABLE_KEY, stored.label(), stored.family(), stored.dailySpendCap());
        List<String> authorities = new ArrayList<>(List.of(caller.kind().name()));
        stored.agents().forEach(agent -> authorities.add(AGENT + agent));
        Authenticated authenticated = new Authenticated(caller, authorities);
        authenticated.setDetails(stored); // for its rate limit
        return authenticated;
    }

    private static void requireProject(StoredKey stored, String projectId) {
        if (!stored.projectId().equals(projectId)) {
            throw CredentialsRefused.forbidden("this API key does not belong to project " + Echo.of(projectId));
        }
    }
}
