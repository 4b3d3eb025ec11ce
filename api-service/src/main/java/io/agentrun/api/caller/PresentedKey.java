package io.agentrun.api.caller;

import io.agentrun.api.security.PresentedSecret;
import org.jspecify.annotations.Nullable;

/** An {@code x-api-key} as sent, with the request facts its rules need. */
final class PresentedKey extends PresentedSecret {

    private final @Nullable String projectId;
    private final @Nullable String origin;

    PresentedKey(String key, @Nullable String projectId, @Nullable String origin) {
        super(key);
        this.projectId = projectId;
        this.origin = origin;
    }

    @Nullable String projectId() {
        return projectId;
    }

    @Nullable String origin() {
        return origin;
    }
}
