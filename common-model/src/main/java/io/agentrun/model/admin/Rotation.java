package io.agentrun.model.admin;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * {@code POST /admin/v1/projects/{project}/keys/{key_id}/rotate}.
 *
 * @param gracePeriod how long the old key keeps working; {@code null} = the configured default
 */
public record Rotation(@Nullable Duration gracePeriod) {

    public static final Duration MAX_GRACE = Duration.ofDays(30);

    public Rotation {
        if (gracePeriod != null && (gracePeriod.isNegative() || gracePeriod.compareTo(MAX_GRACE) > 0)) {
            throw new IllegalArgumentException("grace_period must be between 0s and 30d");
        }
    }
}
