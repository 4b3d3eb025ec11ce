package io.agentrun.worker.cancel;

import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.DisposableBean;

/**
 * Delivers cancel requests to the runs of this worker. Every worker listens on {@code ar:cancel:*}
 * (a cancel names a run, not a worker); the one holding the run acts on it. A request that arrives
 * before the run starts is caught by the flag key checked at {@link #track}, one lost on the channel by
 * the periodic re-check of the flags.
 */
public final class CancellationWatcher implements DisposableBean {

    private final RedisConnections redis;
    private final StatefulRedisPubSubConnection<String, String> pubSub;
    private final Map<String, CancelToken> running = new ConcurrentHashMap<>();
    private final ScheduledFuture<?> recheck;

    public CancellationWatcher(RedisConnections redis, ScheduledExecutorService timers, Duration recheckInterval) {
        this.redis = redis;
        this.pubSub = redis.newPubSub();
        pubSub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String pattern, String channel, String message) {
                CancelToken token = running.get(RedisKeys.runIdOfCancelChannel(channel));
                if (token != null) {
                    token.cancel(CancelToken.Reason.REQUESTED);
                }
            }
        });
        pubSub.sync().psubscribe(RedisKeys.cancelPattern());
        // Last, once every field is set: the timer's thread may run the first re-check at any moment from here.
        this.recheck = timers.scheduleWithFixedDelay(this::recheckFlagsQuietly, recheckInterval.toMillis(), recheckInterval.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** Tracks a starting run; its token is cancelled at once when a cancel request came first. */
    public void track(String runId, CancelToken token) {
        running.put(runId, token);
        if (redis.sync().exists(RedisKeys.cancel(runId)) > 0) {
            token.cancel(CancelToken.Reason.REQUESTED);
        }
    }

    public void forget(String runId) {
        running.remove(runId);
    }

    /**
     * Looks at the flag keys of all running runs: a cancel published while the pub/sub connection was
     * reconnecting is not lost, only late by one interval.
     */
    void recheckFlags() {
        running.forEach((runId, token) -> redis.async().exists(RedisKeys.cancel(runId)).thenAccept(found -> {
            if (found != null && found > 0) {
                token.cancel(CancelToken.Reason.REQUESTED);
            }
        }));
    }

    private void recheckFlagsQuietly() {
        try {
            recheckFlags();
        } catch (RuntimeException e) {
            // Redis unreachable for a moment: the next round tries again
        }
    }

    @Override
    public void destroy() {
        recheck.cancel(false);
        pubSub.close();
    }
}
