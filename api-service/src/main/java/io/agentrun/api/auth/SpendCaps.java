package io.agentrun.api.auth;

import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.model.admin.SpendCap;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;

/**
 * Daily spend caps of publishable keys, per key family and UTC day: runs are counted here when they
 * start; tokens are added by the event relay from each run's {@code run_end} usage. A cap reached
 * refuses new runs until the next UTC day.
 */
public final class SpendCaps {

    private static final Duration KEEP = Duration.ofDays(2);

    private final RedisConnections redis;
    private final Clock clock;

    public SpendCaps(RedisConnections redis, Clock clock) {
        this.redis = redis;
        this.clock = clock;
    }

    /**
     * Counts a run for a publishable caller; nothing for other callers.
     *
     * @throws ApiProblem {@code spend_cap_reached}, with Retry-After until the next UTC day
     */
    public void chargeRun(Caller caller) {
        SpendCap cap = caller.spendCap();
        if (cap == null || caller.keyFamily() == null) {
            return;
        }
        LocalDate today = LocalDate.now(clock.withZone(ZoneOffset.UTC));
        long counted = Scripts.CHARGE_RUN.run(redis.sync(), new String[] {RedisKeys.spend(caller.keyFamily(), today.toString())},
                Long.toString(cap.runs()), Long.toString(cap.tokens()), Long.toString(KEEP.toSeconds()));
        if (counted == 0) {
            Duration untilTomorrow = Duration.between(clock.instant(), today.plusDays(1).atStartOfDay().toInstant(ZoneOffset.UTC));
            throw new ApiProblem(ErrorCode.SPEND_CAP_REACHED, "this key's daily spend cap is reached; it resets at 00:00 UTC")
                    .retryAfter(untilTomorrow);
        }
    }

    /** Gives back a run counted by {@link #chargeRun} that was then not started. */
    public void refundRun(Caller caller) {
        if (caller.spendCap() != null && caller.keyFamily() != null) {
            redis.sync().hincrby(RedisKeys.spend(caller.keyFamily(), LocalDate.now(clock.withZone(ZoneOffset.UTC)).toString()),
                    "runs", -1);
        }
    }
}
