package io.agentrun.platform.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.util.List;

/**
 * The Redis client of one service, for a single node or a Redis Cluster ({@link RedisSettings#isCluster()}): one
 * shared, auto-pipelining command connection (thread-safe, used by every request and run), dedicated connections and
 * pub/sub connections on demand. Lettuce reconnects and re-subscribes by itself.
 *
 * <p>Callers see the commands both modes share ({@link RedisClusterCommands}, {@link RedisClusterAsyncCommands}).
 * Everything that must stay atomic is one Lua script over keys of one hash tag ({@code {id}}), so it runs on the one
 * node that owns the slot; in cluster mode the client routes each command by its first key, follows MOVED and ASK
 * redirects, and re-reads the topology on a timer, on redirects and on lost connections.
 */
public final class RedisConnections implements AutoCloseable {

    private final AbstractRedisClient client;
    private final Links links;
    private final DedicatedConnection shared;
    private final Duration commandTimeout;
    private final boolean cluster;

    /** How one mode opens its connections. */
    private interface Links {
        DedicatedConnection connect();

        StatefulRedisPubSubConnection<String, String> connectPubSub();
    }

    public RedisConnections(RedisSettings settings) {
        this.commandTimeout = settings.commandTimeout();
        this.cluster = settings.isCluster();
        List<RedisURI> uris = settings.nodes().stream().map(RedisURI::create).toList();
        uris.forEach(uri -> uri.setTimeout(settings.commandTimeout()));
        if (cluster) {
            RedisClusterClient clusterClient = RedisClusterClient.create(uris);
            clusterClient.setOptions(ClusterClientOptions.builder()
                    .autoReconnect(true)
                    .timeoutOptions(TimeoutOptions.enabled(settings.commandTimeout()))
                    .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                            .enablePeriodicRefresh(settings.topologyRefresh())
                            .enableAllAdaptiveRefreshTriggers()
                            .build())
                    .build());
            this.client = clusterClient;
            this.links = new Links() {
                @Override
                public DedicatedConnection connect() {
                    StatefulRedisClusterConnection<String, String> connection = clusterClient.connect();
                    return new DedicatedConnection(connection, connection.sync(), connection.async());
                }

                @Override
                public StatefulRedisPubSubConnection<String, String> connectPubSub() {
                    return clusterClient.connectPubSub();
                }
            };
        } else {
            if (uris.size() != 1) {
                throw new IllegalArgumentException("agentrun.redis.url names no Redis node");
            }
            RedisClient single = RedisClient.create(uris.get(0));
            single.setOptions(ClientOptions.builder()
                    .autoReconnect(true)
                    .timeoutOptions(TimeoutOptions.enabled(settings.commandTimeout()))
                    .build());
            this.client = single;
            this.links = new Links() {
                @Override
                public DedicatedConnection connect() {
                    StatefulRedisConnection<String, String> connection = single.connect();
                    return new DedicatedConnection(connection, connection.sync(), connection.async());
                }

                @Override
                public StatefulRedisPubSubConnection<String, String> connectPubSub() {
                    return single.connectPubSub();
                }
            };
        }
        this.shared = links.connect();
    }

    /** A connection with its command views; closing it closes the connection. */
    public record DedicatedConnection(StatefulConnection<String, String> connection, RedisClusterCommands<String, String> sync,
            RedisClusterAsyncCommands<String, String> async) implements AutoCloseable {
        @Override
        public void close() {
            connection.close();
        }
    }

    /**
     * Calls {@code action} whenever the client sees the cluster's slots or nodes change (a failover, a reshard, a node
     * added or lost). Never on a single node.
     */
    public void onTopologyChange(Runnable action) {
        if (cluster) {
            client.getResources().eventBus().get().filter(ClusterTopologyChangedEvent.class::isInstance).subscribe(event -> action.run());
        }
    }

    /** Whether this client speaks to a Redis Cluster. */
    public boolean cluster() {
        return cluster;
    }

    /** How long one command may take before it fails (the sync API's timeout too). */
    public Duration commandTimeout() {
        return commandTimeout;
    }

    /**
     * Waits for pipelined commands ({@code replies}, e.g. {@code CompletableFuture.allOf} of them) as the sync API
     * would: a Redis failure, a timeout or an interrupt becomes a {@link io.lettuce.core.RedisException}.
     *
     * @param what for the timeout's message: what Redis did not answer in time
     */
    public void await(java.util.concurrent.Future<?> replies, Duration timeout, String what) {
        try {
            replies.get(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause() instanceof io.lettuce.core.RedisException r ? r : new io.lettuce.core.RedisException(e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new io.lettuce.core.RedisCommandTimeoutException("Redis did not answer " + what + " within " + timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new io.lettuce.core.RedisException("interrupted while waiting for " + what, e);
        }
    }

    public RedisClusterCommands<String, String> sync() {
        return shared.sync();
    }

    public RedisClusterAsyncCommands<String, String> async() {
        return shared.async();
    }

    /**
     * A dedicated connection, for work that must not share a pipeline with request traffic. On a single node its
     * commands run in the order they were sent; in a cluster only those of one slot do.
     */
    public DedicatedConnection newConnection() {
        return links.connect();
    }

    /**
     * A pub/sub connection. In cluster mode, classic channels ({@code SUBSCRIBE}, {@code PSUBSCRIBE}) are heard
     * cluster-wide from one node, and sharded ones ({@code SSUBSCRIBE}) on the node that owns the channel's slot.
     */
    public StatefulRedisPubSubConnection<String, String> newPubSub() {
        return links.connectPubSub();
    }

    @Override
    public void close() {
        shared.close();
        client.shutdown();
    }
}
