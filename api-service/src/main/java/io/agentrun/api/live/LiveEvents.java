package io.agentrun.api.live;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;

/**
 * This api node's live feed: one Redis pub/sub connection, subscribed to {@code ar:live:{run}} for every
 * run a client of this node watches. The relay publishes each event there; whichever node holds the
 * connection gets it.
 *
 * <p>The channels are shard channels ({@code SSUBSCRIBE}): in a Redis Cluster a message goes to the one shard that
 * owns the run's slot, not to every node as a classic {@code PUBLISH} does, so fan-out cost shrinks as shards are
 * added. When a slot moves (resharding, a failover) Redis ends the subscriptions of its channels, and a lost node
 * takes its subscriptions with it: channels still watched are subscribed again, where the topology now puts them.
 * Meanwhile a watcher misses nothing: a quiet stream reads the run's backlog ({@link RunSubscription}).
 */
public final class LiveEvents implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(LiveEvents.class);

    private final StatefulRedisPubSubConnection<String, String> pubSub;
    private final ConcurrentHashMap<String, Channel> byChannel = new ConcurrentHashMap<>();

    /** The watchers of one run on this node, and Redis's confirmation of the one subscription they share. */
    private record Channel(Set<RunSubscription> watchers, CompletableFuture<Void> confirmed) {
    }
    private final JsonCodec codec;
    private final Backlog backlog;
    private final Duration gapCheckInterval;
    private final int maxQueuedPerStream;
    private final Duration commandTimeout;

    public LiveEvents(RedisConnections redis, JsonCodec codec, Backlog backlog, Duration gapCheckInterval,
            int maxQueuedPerStream, Duration commandTimeout) {
        this.pubSub = redis.newPubSub();
        this.codec = codec;
        this.backlog = backlog;
        this.gapCheckInterval = gapCheckInterval;
        this.maxQueuedPerStream = maxQueuedPerStream;
        this.commandTimeout = commandTimeout;
        pubSub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void smessage(String channel, String message) {
                Channel watched = byChannel.get(channel);
                if (watched != null) {
                    watched.watchers().forEach(w -> w.offer(message));
                }
            }

            @Override
            public void sunsubscribed(String channel, long count) {
                if (byChannel.containsKey(channel)) {
                    resubscribe(channel); // not ours: Redis moved the channel's slot away from this node
                }
            }
        });
        redis.onTopologyChange(this::resubscribeAll);
    }

    /** Subscribes again to every watched channel, on the node that owns its slot now (a repeat is harmless). */
    void resubscribeAll() {
        byChannel.keySet().forEach(this::resubscribe);
    }

    private void resubscribe(String channel) {
        pubSub.async().ssubscribe(channel).exceptionally(failure -> {
            log.warn("could not subscribe again to {} ({}); its watchers read the backlog meanwhile", channel, failure.getMessage());
            return null;
        });
    }

    /**
     * Subscribes to a run's live events from {@code firstSeq} on; returns once Redis confirmed the
     * subscription, so nothing published afterwards is missed.
     */
    public RunSubscription subscribe(String runId, long firstSeq) {
        String channel = RedisKeys.liveChannel(runId);
        RunSubscription subscription = new RunSubscription(runId, firstSeq, codec, backlog, gapCheckInterval,
                maxQueuedPerStream, closed -> unsubscribe(channel, closed));
        // Redis calls are issued inside compute so that SUBSCRIBE and UNSUBSCRIBE of one channel reach Redis
        // in the order the map changed. Every watcher waits for the one confirmation.
        Channel watched = byChannel.compute(channel, (key, existing) -> {
            Channel current = existing != null ? existing
                    : new Channel(new CopyOnWriteArraySet<>(), pubSub.async().ssubscribe(channel).toCompletableFuture());
            current.watchers().add(subscription);
            return current;
        });
        awaitConfirmation(channel, watched, subscription);
        return subscription;
    }

    /** The node is draining: every open subscription stops waiting, so its stream can tell the client to reconnect. */
    public void interruptAll() {
        byChannel.values().forEach(watched -> watched.watchers().forEach(RunSubscription::interrupt));
    }

    /** Number of runs this node watches now. */
    public int watchedRuns() {
        return byChannel.size();
    }

    private void awaitConfirmation(String channel, Channel watched, RunSubscription subscription) {
        try {
            watched.confirmed().get(commandTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            subscription.close();
            // A subscription Redis never confirmed must not stay in the map: the next watcher subscribes afresh.
            byChannel.computeIfPresent(channel, (key, current) -> current == watched && current.confirmed().isDone() ? null : current);
            throw new SubscribeException("could not subscribe to live events of " + subscription.runId(), e);
        } catch (InterruptedException e) {
            subscription.close();
            Thread.currentThread().interrupt();
            throw new SubscribeException("interrupted while subscribing", e);
        }
    }

    /** Redis did not confirm a subscription in time. */
    public static final class SubscribeException extends RuntimeException {
        SubscribeException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private void unsubscribe(String channel, RunSubscription closed) {
        byChannel.computeIfPresent(channel, (key, watched) -> {
            watched.watchers().remove(closed);
            if (watched.watchers().isEmpty()) {
                pubSub.async().sunsubscribe(channel);
                return null;
            }
            return watched;
        });
    }

    @Override
    public void destroy() {
        pubSub.close();
    }
}
