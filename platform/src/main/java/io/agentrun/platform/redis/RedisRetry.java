package io.agentrun.platform.redis;

import io.agentrun.platform.retry.BackOffPolicy;
import io.lettuce.core.RedisException;
import java.time.Duration;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * A Redis call tried again while Redis does not answer (a restart, a Redis Cluster failover), pausing by the services'
 * one {@link BackOffPolicy}, for work that must wait for Redis rather than fail (a claim, a claimed run's setup, a
 * refusal that must be recorded). Callers say only how long they may wait and when to stop early.
 */
public final class RedisRetry {

    /** No limit of time: only the caller's {@code goOn} (or an interrupt) ends the retries. */
    public static final Duration NO_TIMEOUT = BackOffPolicy.NO_TIMEOUT;

    private RedisRetry() {
    }

    /**
     * @param timeout how long the call and its retries may take in all ({@link #NO_TIMEOUT}: unbounded); an attempt
     *                whose pause would end past it is not made
     * @param goOn    asked with each Redis failure; false ends the retries (a stopping worker, a cancelled run)
     * @return the call's answer
     * @throws RedisException the last failure, once time was up, {@code goOn} said no, or the thread was interrupted
     *                        (its flag set); any other exception at once
     */
    public static <T> T untilAnswered(Supplier<T> call, Duration timeout, Predicate<RedisException> goOn) {
        return BackOffPolicy.STANDARD.untilAnswered(call, timeout, failure -> failure instanceof RedisException redis && goOn.test(redis));
    }
}
