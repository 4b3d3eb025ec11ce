package io.agentrun.platform.redis;

import io.lettuce.core.RedisException;
import java.util.function.LongPredicate;
import java.util.function.Supplier;

/**
 * A Redis call retried while Redis does not answer (a restart, a Redis Cluster failover), with back-off from 50 ms
 * doubling to 1 s. For work that must wait for Redis rather than fail: a claim, a claimed run's setup.
 */
public final class RedisRetry {

    private static final long FIRST_PAUSE_MS = 50;
    private static final long LONGEST_PAUSE_MS = 1000;

    private RedisRetry() {
    }

    /**
     * @param giveUp asked after each failure with the pause about to be taken (ms); true ends the retries
     * @return the call's answer
     * @throws RedisException the last failure, once {@code giveUp} said so or the thread was interrupted (its flag set)
     */
    public static <T> T untilAnswered(Supplier<T> call, LongPredicate giveUp) {
        long pauseMs = FIRST_PAUSE_MS;
        while (true) {
            try {
                return call.get();
            } catch (RedisException e) {
                if (giveUp.test(pauseMs) || !pause(pauseMs)) {
                    throw e;
                }
                pauseMs = Math.min(pauseMs * 2, LONGEST_PAUSE_MS);
            }
        }
    }

    private static boolean pause(long millis) {
        try {
            Thread.sleep(millis); // back-off while Redis is unreachable, not synchronisation
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
