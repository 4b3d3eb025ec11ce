package io.agentrun.api.live;

import io.agentrun.model.json.CodecException;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.live.LiveMessage;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.RunLibrary;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;

/**
 * This api node's live feed: ONE shard-channel subscription, {@code ar:node:{node}}, for every run a client of this
 * node watches. The relay publishes what it applied of a batch in one message per watching node, and this node hands
 * each run's events to its watchers here. The relay knows which node watches a run from the run's state: the node
 * that created it ({@link #subscribeNew}: written with the run, no extra round trip) and the nodes that joined it
 * later ({@link #subscribe}: one {@code SADD} before the join reads the backlog).
 *
 * <p>One subscription per node rather than one per run: a run costs no {@code SSUBSCRIBE}/{@code SUNSUBSCRIBE}, an
 * event batch one message per node, and a re-subscription after a Redis failover is one channel. When Redis ends the
 * subscription (its slot moved, its node was lost) it is made again, on every topology change too; meanwhile a
 * watcher misses nothing: a quiet stream reads the run's backlog ({@link RunSubscription}).
 */
public final class LiveEvents implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(LiveEvents.class);

    private final String nodeId = "api-" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());
    private final String channel = RedisKeys.nodeChannel(nodeId);
    private final RedisConnections redis;
    private final StatefulRedisPubSubConnection<String, String> pubSub;
    private final ConcurrentHashMap<String, Set<RunSubscription>> byRun = new ConcurrentHashMap<>();
    private final JsonCodec codec;
    private final Backlog backlog;
    private final Duration gapCheckInterval;
    private final int maxQueuedPerStream;
    private final Duration commandTimeout;
    private final Duration watcherRetention;
    private volatile CompletableFuture<Void> subscribed;
    /** Events streams took from the backlog because this node's live channel had not brought them in time. */
    private final LongAdder fromBacklog = new LongAdder();

    /** @param watcherRetention how long a run remembers that this node joined it (the run's own retention) */
    public LiveEvents(RedisConnections redis, JsonCodec codec, Backlog backlog, Duration gapCheckInterval,
            int maxQueuedPerStream, Duration commandTimeout, Duration watcherRetention) {
        this.redis = redis;
        this.pubSub = redis.newPubSub();
        this.codec = codec;
        this.backlog = backlog;
        this.gapCheckInterval = gapCheckInterval;
        this.maxQueuedPerStream = maxQueuedPerStream;
        this.commandTimeout = commandTimeout;
        this.watcherRetention = watcherRetention;
        pubSub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void smessage(String from, String message) {
                if (from.equals(channel)) {
                    dispatch(message);
                }
            }

            @Override
            public void sunsubscribed(String from, long count) {
                if (from.equals(channel)) {
                    resubscribe(); // not ours: Redis moved the channel's slot away from its node
                }
            }
        });
        this.subscribed = subscribeChannel();
        redis.onTopologyChange(this::resubscribe);
    }

    /** The id the relay publishes this node's events under. */
    public String nodeId() {
        return nodeId;
    }

    /** Subscribes again, on the node that owns the channel's slot now (a repeat is harmless). */
    void resubscribe() {
        CompletableFuture<Void> again = subscribeChannel();
        again.exceptionally(failure -> {
            log.warn("could not subscribe again to this node's live channel ({}); its streams read the backlog meanwhile",
                    failure.getMessage());
            return null;
        });
        if (subscribed.isCompletedExceptionally()) {
            subscribed = again;
        }
    }

    /** Completes when Redis confirmed this node's one subscription. */
    private CompletableFuture<Void> subscribeChannel() {
        return pubSub.async().ssubscribe(channel).toCompletableFuture().thenRun(() -> { });
    }

    /**
     * Watches a run this node is creating: the run's state names this node ({@code RunStore.createQueued}), so
     * nothing is written here. Returns once this node's channel is subscribed, so nothing published afterwards is
     * missed.
     */
    public RunSubscription subscribeNew(String runId) {
        RunSubscription subscription = register(runId, 0);
        awaitChannel(subscription);
        return subscription;
    }

    /**
     * Joins a run's live events from {@code firstSeq} on: this node is added to the run's watchers (after it listens),
     * so every event the relay applies from then on is published here too; what it applied before is in the backlog,
     * which the caller reads next ({@link RunSubscription#catchUp}).
     */
    public RunSubscription subscribe(String runId, long firstSeq) {
        RunSubscription subscription = register(runId, firstSeq);
        awaitChannel(subscription);
        try {
            redis.await(RunLibrary.WATCH_RUN.callAlone(redis, ScriptOutputType.INTEGER,
                    new String[] {RedisKeys.run(runId), RedisKeys.runWatchers(runId)}, nodeId,
                    Long.toString(watcherRetention.toMillis())), commandTimeout, "this node's place among the run's watchers");
        } catch (RuntimeException e) {
            subscription.close();
            throw new SubscribeException("could not join the live events of " + runId, e);
        }
        return subscription;
    }

    private RunSubscription register(String runId, long firstSeq) {
        RunSubscription subscription = new RunSubscription(runId, firstSeq, backlog, gapCheckInterval,
                maxQueuedPerStream, this::unregister, fromBacklog);
        byRun.computeIfAbsent(runId, id -> new CopyOnWriteArraySet<>()).add(subscription);
        return subscription;
    }

    private void unregister(RunSubscription closed) {
        byRun.computeIfPresent(closed.runId(), (id, watchers) -> {
            watchers.remove(closed);
            return watchers.isEmpty() ? null : watchers;
        });
    }

    /** One message of this node's channel: each run's events, in order, to that run's watchers, in one hand-off each. */
    private void dispatch(String message) {
        Map<String, List<Frame>> byRunId = new HashMap<>();
        LiveMessage.forEach(message, (json, traceparent) -> {
            try {
                var header = codec.peekHeader(json);
                byRunId.computeIfAbsent(header.runId(), id -> new ArrayList<>(4))
                        .add(new Frame(header.seq(), header.type(), json, traceparent));
            } catch (CodecException e) {
                log.warn("ignoring a malformed live event: {}", e.getMessage());
            }
        });
        byRunId.forEach((runId, frames) -> {
            Set<RunSubscription> watchers = byRun.get(runId);
            if (watchers != null) {
                watchers.forEach(w -> w.offer(frames));
            }
        });
    }

    /** The node is draining: every open subscription stops waiting, so its stream can tell the client to reconnect. */
    public void interruptAll() {
        byRun.values().forEach(watchers -> watchers.forEach(RunSubscription::interrupt));
    }

    /**
     * Events this node's streams read from the backlog because the live channel had not brought them (a gap, or a quiet
     * stream's check found more): after a failover, the measure of whether live delivery came back. A join's catch-up
     * is not counted.
     */
    public long eventsFromBacklog() {
        return fromBacklog.sum();
    }

    /** Number of runs this node watches now. */
    public int watchedRuns() {
        return byRun.size();
    }

    private void awaitChannel(RunSubscription subscription) {
        CompletableFuture<Void> current = subscribed;
        if (current.isCompletedExceptionally()) {
            resubscribe();
            current = subscribed;
        }
        try {
            current.get(commandTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            subscription.close();
            throw new SubscribeException("could not subscribe to this node's live channel", e);
        } catch (InterruptedException e) {
            subscription.close();
            Thread.currentThread().interrupt();
            throw new SubscribeException("interrupted while subscribing", e);
        }
    }

    /** Redis did not confirm the subscription, or the join, in time. */
    public static final class SubscribeException extends RuntimeException {
        SubscribeException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    @Override
    public void destroy() {
        pubSub.close();
    }
}
