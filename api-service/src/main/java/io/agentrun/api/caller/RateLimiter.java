package io.agentrun.api.caller;

import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.model.admin.RateLimit;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import java.time.Duration;

/**
 * Rate limits of publishable keys: one token bucket per key and one per client IP of that key, both taken
 * atomically by one Lua script on Redis, so the limit holds across every api node.
 */
final class RateLimiter {

    private final RedisConnections redis;

    RateLimiter(RedisConnections redis) {
        this.redis = redis;
    }

    /** @throws ApiProblem {@code rate_limited} with the time to wait, when either bucket is empty */
    void take(StoredKey key, String clientIp) {
        RateLimit limit = key.rateLimit() == null ? RateLimit.DEFAULT : key.rateLimit();
        long waitMs = Scripts.RATE_LIMIT.run(redis.sync(),
                new String[] {RedisKeys.rateBucket(key.keyId(), ""), RedisKeys.rateBucket(key.keyId(), clientIp)},
                Integer.toString(limit.perKey()), Integer.toString(limit.perIp()));
        if (waitMs > 0) {
            throw new ApiProblem(ErrorCode.RATE_LIMITED, "this key's rate limit is reached; retry after the Retry-After delay")
                    .retryAfter(Duration.ofMillis(waitMs));
        }
    }
}
