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
