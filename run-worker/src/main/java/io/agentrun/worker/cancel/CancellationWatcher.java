package io.agentrun.worker.cancel;

import org.springframework.scheduling.TaskScheduler;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisClientConfiguration;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.schedule.PeriodicTask;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.listener.PatternTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * Delivers cancel requests to the runs of this worker. Every worker listens on {@code ar:cancel:*}
 * (a cancel names a run, not a worker); the one holding the run acts on it. A request that arrives
 * before the run starts is caught by the flag key checked at {@link #track}, one lost on the channel by
 * the periodic re-check of the flags.
 *
 * <p>A lifecycle: it listens and re-checks from {@link #start} to {@link #stop} (before the dispatcher starts taking
 * runs, after it drained them), nothing in its constructor.
 */
public final class CancellationWatcher extends PeriodicTask implements MessageListener {

    private static final PatternTopic CANCELS = new PatternTopic(RedisKeys.cancelPattern());

    private final RedisConnections redis;
    private final RedisMessageListenerContainer listeners;
    private final Map<String, CancelToken> running = new ConcurrentHashMap<>();

    public CancellationWatcher(RedisConnections redis, RedisMessageListenerContainer listeners, TaskScheduler timers,
            Duration recheckInterval) {
        super(timers, recheckInterval);
        this.redis = redis;
        this.listeners = listeners;
    }

    /**
     * Tracks a starting run; its token is cancelled as soon as Redis says a cancel request came first. Not waited for
     * (a blocking round trip per run at start): a run cancelled before it started stops at its first step, or at the
     * latest at the next re-check, and ends {@code cancelled} either way.
     */
    public void track(String runId, CancelToken token) {
        running.put(runId, token);
        redis.async().exists(RedisKeys.cancel(runId)).thenAccept(found -> {
            if (found != null && found > 0) {
                token.cancel(CancelToken.Reason.REQUESTED);
            }
        });
    }

    public void forget(String runId) {
        running.remove(runId);
    }

    /** A cancel on the channel: {@code ar:cancel:{runId}}. */
    @Override
    public void onMessage(Message message, byte @Nullable [] pattern) {
        CancelToken token = running.get(RedisKeys.runIdOfCancelChannel(new String(message.getChannel(), StandardCharsets.UTF_8)));
        if (token != null) {
            token.cancel(CancelToken.Reason.REQUESTED);
        }
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

    /** One re-check round; Redis unreachable for a moment is no reason to stop: the next round tries again. */
    @Override
    protected void runOnce() {
        try {
            recheckFlags();
        } catch (RuntimeException e) {
            // the next round tries again
        }
    }

    /** Subscribes (returning once Redis confirmed), then starts the re-check. */
    @Override
    public void start() {
        listeners.addMessageListener(this, CANCELS);
        super.start();
    }

    @Override
    public void stop() {
        super.stop();
        listeners.removeMessageListener(this, CANCELS);
    }

    /** After the listener container started, before the dispatcher takes runs; stopped after it drained them. */
    @Override
    public int getPhase() {
        return RedisClientConfiguration.LISTENER_PHASE + 1;
    }
}
