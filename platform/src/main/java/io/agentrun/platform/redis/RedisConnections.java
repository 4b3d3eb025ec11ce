package io.agentrun.platform.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/**
 * The Redis client of one service: one shared, auto-pipelining command connection (thread-safe, used by
 * every request and run) and pub/sub connections on demand. Lettuce reconnects and re-subscribes by itself.
 */
public final class RedisConnections implements AutoCloseable {

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> shared;
    private final java.time.Duration commandTimeout;

    public RedisConnections(RedisSettings settings) {
        this.commandTimeout = settings.commandTimeout();
        RedisURI uri = RedisURI.create(settings.url());
        uri.setTimeout(settings.commandTimeout());
        this.client = RedisClient.create(uri);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .timeoutOptions(TimeoutOptions.enabled(settings.commandTimeout()))
                .build());
        this.shared = client.connect();
    }

    /** How long one command may take before it fails (the sync API's timeout too). */
    public java.time.Duration commandTimeout() {
        return commandTimeout;
    }

    /**
     * Waits for pipelined commands ({@code replies}, e.g. {@code CompletableFuture.allOf} of them) as the sync API
     * would: a Redis failure, a timeout or an interrupt becomes a {@link io.lettuce.core.RedisException}.
     *
     * @param what for the timeout's message: what Redis did not answer in time
     */
    public void await(java.util.concurrent.Future<?> replies, java.time.Duration timeout, String what) {
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

    public RedisCommands<String, String> sync() {
        return shared.sync();
    }

    public RedisAsyncCommands<String, String> async() {
        return shared.async();
    }

    /** A dedicated connection, for work that must not share a pipeline with request traffic. */
    public StatefulRedisConnection<String, String> newConnection() {
        return client.connect();
    }

    public StatefulRedisPubSubConnection<String, String> newPubSub() {
        return client.connectPubSub();
    }

    @Override
    public void close() {
        shared.close();
        client.shutdown();
    }
}
