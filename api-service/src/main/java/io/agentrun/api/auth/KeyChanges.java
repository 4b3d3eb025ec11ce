package io.agentrun.api.auth;

import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pushes key changes to every api node: a revoke or rotate on one node publishes the key's hash on
 * {@code ar:keys:changed}, and each node drops it from its caches at once — so revocation takes effect
 * everywhere in milliseconds instead of after the cache TTL. The message is a hash, never a key.
 */
final class KeyChanges implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(KeyChanges.class);

    private final RedisConnections redis;
    private final StatefulRedisPubSubConnection<String, String> subscription;

    KeyChanges(RedisConnections redis, KeyStore keys, AllowedOrigins origins) {
        this.redis = redis;
        this.subscription = redis.newPubSub();
        subscription.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String changed) {
                if (AllowedOrigins.CHANGED.equals(changed)) {
                    origins.invalidate();
                } else {
                    keys.forget(changed);
                }
            }
        });
        subscription.sync().subscribe(RedisKeys.keysChanged());
        keys.announceThrough(this);
        origins.announceThrough(this);
    }

    /** Tells every node (this one included) that the key with this hash, or the origin list, changed. */
    public void announce(String changed) {
        try {
            redis.sync().publish(RedisKeys.keysChanged(), changed);
        } catch (RuntimeException e) {
            // The change is stored; other nodes see it when their cache entry expires.
            log.warn("could not announce a key change: {}", e.getMessage());
        }
    }

    @Override
    public void close() {
        subscription.close();
    }
}
