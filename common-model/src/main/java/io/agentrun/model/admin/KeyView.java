package io.agentrun.model.admin;

import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A key as the admin API lists it — never the key itself: {@code display} is its prefix and last four
 * characters ({@code ar_pk_prod_…x7Qa}).
 *
 * @param expiresAt when a rotated key stops working; {@code null} while it has no end
 */
public record KeyView(
        String keyId,
        KeyKind kind,
        String label,
        KeyEnvironment environment,
        String display,
        List<String> agents,
        List<String> allowedOrigins,
        @Nullable RateLimit rateLimit,
        @Nullable SpendCap dailySpendCap,
        Instant createdAt,
        @Nullable Instant lastUsedAt,
        @Nullable Instant expiresAt) {
}
