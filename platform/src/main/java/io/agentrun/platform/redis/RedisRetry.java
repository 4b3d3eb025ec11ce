package io.agentrun.platform.redis;

import io.lettuce.core.RedisException;
import java.time.Duration;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;

/**
 * The one retry policy of the services: a Redis call tried again while Redis does not answer (a restart, a Redis
 * Cluster failover), pausing 50 ms doubling to 1 s between attempts, for work that must wait for Redis rather than
 * fail (a claim, a claimed run's setup, a refusal that must be recorded). Spring's {@link RetryTemplate} runs it;
 * callers say only how long they may wait and when to stop early. (Model calls honour a provider's Retry-After and
 * webhooks keep a durable schedule; neither is a wait for Redis.)
 */
public final class RedisRetry {

    /** No limit of time: only the caller's {@code goOn} (or an interrupt) ends the retries. */
    public static final Duration NO_TIMEOUT = Duration.ZERO;

    private static final Duration FIRST_PAUSE = Duration.ofMillis(50);
    private static final Duration LONGEST_PAUSE = Duration.ofSeconds(1);

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
        RetryPolicy policy = RetryPolicy.builder()
                .predicate(failure -> failure instanceof RedisException redis && goOn.test(redis))
                .maxRetries(Long.MAX_VALUE)
                .delay(FIRST_PAUSE).multiplier(2).maxDelay(LONGEST_PAUSE)
                .timeout(timeout)
                .build();
        return new RetryTemplate(policy).invoke(call);
    }
}
