package io.agentrun.api.caller;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/** The token of an {@code Authorization: Bearer …} header (scheme matched case-insensitively), if any. */
public final class BearerToken {

    private static final String BEARER = "Bearer ";

    private BearerToken() {
    }

    public static @Nullable String of(HttpServletRequest request) {
        String authorization = request.getHeader("Authorization");
        return authorization != null && authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())
                ? authorization.substring(BEARER.length()).strip()
                : null;
    }
}
