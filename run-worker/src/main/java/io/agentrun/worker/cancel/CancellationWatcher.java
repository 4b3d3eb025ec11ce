package io.agentrun.worker.cancel;

import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.DisposableBean;

/**
 * Delivers cancel requests to the runs of this worker. Every worker listens on {@code ar:cancel:*}
 * (a cancel names a run, not a worker); the one holding the run acts on it. A request that arrives
 * before the run starts is caught by the flag key checked at {@link #register}.
 */
public final class CancellationWatcher implements DisposableBean {

    private final RedisConnections redis;
    private final StatefulRedisPubSubConnection<String, String> pubSub;
    private final Map<String, CancelToken> running = new ConcurrentHashMap<>();

    public CancellationWatcher(RedisConnections redis) {
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
    }

    /** Tracks a starting run; its token is already cancelled when a cancel request came first. */
    public CancelToken register(String runId) {
        CancelToken token = new CancelToken();
        running.put(runId, token);
        if (redis.sync().exists(RedisKeys.cancel(runId)) > 0) {
            token.cancel(CancelToken.Reason.REQUESTED);
        }
        return token;
    }

    public void unregister(String runId) {
        running.remove(runId);
    }

    @Override
    public void destroy() {
        pubSub.close();
    }
}
