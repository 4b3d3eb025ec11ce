package io.agentrun.api.run;

import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import io.lettuce.core.SetArgs;
import java.time.Duration;

/**
 * Asks the worker holding a run to stop it: a flag key (seen by a worker that starts the run later)
 * and a message on the run's cancel channel (seen by the worker running it now).
 */
public final class RunCanceller {

    private static final Duration FLAG_TTL = Duration.ofHours(1);

    private final RedisConnections redis;

    public RunCanceller(RedisConnections redis) {
        this.redis = redis;
    }

    public void cancel(String runId) {
        String key = RedisKeys.cancel(runId);
        redis.sync().set(key, "1", SetArgs.Builder.px(FLAG_TTL.toMillis()));
        redis.sync().publish(key, "cancel");
    }
}
