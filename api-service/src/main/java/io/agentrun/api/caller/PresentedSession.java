package io.agentrun.api.caller;

import io.agentrun.api.security.PresentedSecret;
import org.jspecify.annotations.Nullable;

/** A session token ({@code Authorization: Bearer <JWT>}) as sent, with the project it is used for. */
final class PresentedSession extends PresentedSecret {

    private final @Nullable String projectId;

    PresentedSession(String token, @Nullable String projectId) {
        super(token);
        this.projectId = projectId;
    }

    @Nullable String projectId() {
        return projectId;
    }
}
