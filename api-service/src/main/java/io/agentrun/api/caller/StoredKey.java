package io.agentrun.api.caller;

import io.agentrun.model.admin.KeyEnvironment;
import io.agentrun.model.admin.KeyKind;
import io.agentrun.model.admin.KeyView;
import io.agentrun.model.admin.RateLimit;
import io.agentrun.model.admin.SpendCap;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A key as stored (JSON in {@code ar:key:<sha256>}), without the key: what it grants.
 *
 * @param family the id of the first key of a rotation chain: threads, runs and spend belong to the family,
 *               so a rotated widget key keeps its conversations and its daily budget
 */
record StoredKey(
        String keyId,
        String family,
        String projectId,
        KeyKind kind,
        String label,
        KeyEnvironment environment,
        String display,
        List<String> agents,
        List<String> allowedOrigins,
        @Nullable RateLimit rateLimit,
        @Nullable SpendCap dailySpendCap,
        Instant createdAt,
        @Nullable Instant expiresAt) {

    public boolean usableAt(Instant now) {
        return expiresAt == null || now.isBefore(expiresAt);
    }

    StoredKey expiringAt(Instant when) {
        return new StoredKey(keyId, family, projectId, kind, label, environment, display, agents, allowedOrigins, rateLimit,
                dailySpendCap, createdAt, when);
    }

    KeyView view(@Nullable Instant lastUsedAt) {
        return new KeyView(keyId, kind, label, environment, display, agents, allowedOrigins, rateLimit, dailySpendCap, createdAt,
                lastUsedAt, expiresAt);
    }
}
