package io.agentrun.api.caller;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.redis.RedisConnections;
import java.time.Clock;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/** Who calls: keys, sessions and browsers; their limits and spend caps. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({AuthSettings.class, SessionSettings.class})
class AuthConfiguration {

    @Bean
    KeyChanges keyChanges(RedisConnections redis) {
        return new KeyChanges(redis);
    }

    @Bean
    AllowedOrigins allowedOrigins(RedisConnections redis, JsonCodec codec, Clock clock, AuthSettings settings, KeyChanges changes) {
        return new AllowedOrigins(redis, codec, clock, settings.keyCacheTtl(), changes);
    }

    /** Also hears every node's key changes on the listener container, so its cache forgets a revoked key at once. */
    @Bean
    KeyStore keyStore(RedisConnections redis, JsonCodec codec, AuthSettings settings, AllowedOrigins origins, Clock clock,
            KeyChanges changes, RedisMessageListenerContainer listeners) {
        KeyStore keys = new KeyStore(redis, codec, settings, origins, clock, changes);
        listeners.addMessageListener(KeyChanges.listener(keys, origins), KeyChanges.CHANNEL);
        return keys;
    }

    @Bean
    SpendCaps spendCaps(Clock clock) {
        return new SpendCaps(clock);
    }
}
