package io.agentrun.api.caller;

import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.model.admin.SpendCap;
import io.agentrun.platform.store.RunStarts;
import org.jspecify.annotations.Nullable;
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

    private final Clock clock;

    public SpendCaps(Clock clock) {
        this.clock = clock;
    }

    /**
     * What a publishable caller's run counts against, taken with the run's start ({@code RunStarts}); null for other
     * callers.
     */
    public RunStarts.@Nullable SpendCharge chargeFor(Caller caller) {
        SpendCap cap = caller.spendCap();
        if (cap == null || caller.keyFamily() == null) {
            return null;
        }
        return new RunStarts.SpendCharge(caller.keyFamily(), today().toString(), cap.runs(), cap.tokens(), KEEP);
    }

    /** The problem for a run its caller's cap refused: Retry-After until the next UTC day. */
    public ApiProblem capReached() {
        Duration untilTomorrow = Duration.between(clock.instant(), today().plusDays(1).atStartOfDay().toInstant(ZoneOffset.UTC));
        return new ApiProblem(ErrorCode.SPEND_CAP_REACHED, "this key's daily spend cap is reached; it resets at 00:00 UTC")
                .retryAfter(untilTomorrow);
    }

    private LocalDate today() {
        return LocalDate.now(clock.withZone(ZoneOffset.UTC));
    }
}
