package io.agentrun.api.caller;

import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.listener.ChannelTopic;

/**
 * Pushes key changes to every api node: a revoke or rotate on one node publishes the key's hash on
 * {@code ar:keys:changed}, and each node drops it from its caches at once — so revocation takes effect
 * everywhere in milliseconds instead of after the cache TTL. The message is a hash, never a key. Each node hears
 * the channel through the listener container ({@link AuthConfiguration}).
 */
final class KeyChanges {

    static final ChannelTopic CHANNEL = new ChannelTopic(RedisKeys.keysChanged());
    private static final Logger log = LoggerFactory.getLogger(KeyChanges.class);

    private final RedisConnections redis;

    KeyChanges(RedisConnections redis) {
        this.redis = redis;
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

    /** What hears the channel: a node (this one too) changed a key, or the origin list; the caches forget it. */
    static MessageListener listener(KeyStore keys, AllowedOrigins origins) {
        return (Message message, byte @Nullable [] pattern) -> {
            String changed = new String(message.getBody(), StandardCharsets.UTF_8);
            if (AllowedOrigins.CHANGED.equals(changed)) {
                origins.invalidate();
            } else {
                keys.forget(changed);
            }
        };
    }
}
