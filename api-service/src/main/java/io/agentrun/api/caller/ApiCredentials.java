package io.agentrun.api.caller;

import io.agentrun.api.security.CredentialsRefused;
import io.agentrun.model.admin.KeyKind;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.springframework.security.core.Authentication;
import org.springframework.security.web.authentication.AuthenticationConverter;

/**
 * Finds the credential of an {@code /api/v1} request: an {@code x-api-key}, else (when sessions are on) a session
 * token in {@code Authorization: Bearer}. None: {@code null}, and the chain answers 401 saying what to send.
 */
final class ApiCredentials implements AuthenticationConverter {

    static final String API_KEY = "x-api-key";
    static final String PROJECT_ID = "x-project-id";
    static final String ORIGIN = "Origin";
    private static final String PUBLISHABLE_PREFIX = "ar_" + KeyKind.PUBLISHABLE.tag() + "_";

    private final boolean sessions;

    ApiCredentials(boolean sessions) {
        this.sessions = sessions;
    }

    @Override
    public @Nullable Authentication convert(HttpServletRequest request) {
        String key = request.getHeader(API_KEY);
        String projectId = request.getHeader(PROJECT_ID);
        if (key != null && !key.isBlank()) {
            return new PresentedKey(key.strip(), projectId, request.getHeader(ORIGIN));
        }
        String bearer = sessions ? BearerToken.of(request) : null;
        return bearer == null ? null : new PresentedSession(bearer, projectId);
    }

    /** The {@code x-project-id} a secret key or a session must name. */
    static String requiredProject(@Nullable String projectId) {
        if (projectId == null || projectId.isBlank()) {
            throw CredentialsRefused.unauthorized("send your project id in the x-project-id header");
        }
        return projectId.strip();
    }

    /** Whether an {@code x-api-key} is a publishable one by its prefix ({@code ar_pk_}): the browser surface's. */
    static boolean publishable(HttpServletRequest request) {
        String key = request.getHeader(API_KEY);
        return key != null && key.strip().startsWith(PUBLISHABLE_PREFIX);
    }
}
