package io.agentrun.platform.redis;

import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.config.RedisListenerConfigUtils;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * The services' Redis client: Spring Boot builds the {@link LettuceConnectionFactory} from {@code spring.data.redis.*}
 * (one node, sentinels or a Redis Cluster), and {@link RedisConnections} uses its Lettuce client.
 *
 * <p>Shutdown order: the factory is a {@code SmartLifecycle} of phase 0 and shuts its client down when it stops. Every
 * part that still talks to Redis while it stops is a lifecycle of a higher phase, so it stops first: the worker's
 * dispatcher (draining its runs) and lease keeper, the relay's listener containers and webhook dispatcher, the api's
 * drain and the web server's graceful shutdown. Destroy methods, which run after every lifecycle stopped, only close
 * connections.
 */
@Configuration(proxyBeanMethods = false)
public class RedisClientConfiguration {

    /**
     * Longest wait between two attempts to reconnect to a Redis node. Lettuce's default doubles up to 30 s: a primary
     * that was down for 5 s and came back (restarted, no failover) got its connections back only at the next attempt,
     * up to 8 s later — the api's live subscription and the relays' writes to that node with it, so streams read the
     * backlog and events arrived seconds late (LiveFailoverIT). Two attempts a second to a dead node cost nothing.
     */
    static final Duration MAX_RECONNECT_DELAY = Duration.ofMillis(500);

    /**
     * Phase of {@link #redisMessageListeners}: below every part that drains work — the worker's dispatcher and lease
     * keeper, the relay's containers, the api's drain and its web server's graceful shutdown ({@code DEFAULT_PHASE -
     * 1024}) and stop ({@code - 2048}) — so it is listening before they start and still listening while they drain (a
     * cancel reaches a draining run, a revoked key a request in flight); above the Redis client's factory (phase 0).
     */
    public static final int LISTENER_PHASE = Integer.MAX_VALUE - 4096;

    /**
     * Spring Data Redis's listener container for the classic channels every node must hear (cancels, key changes):
     * it subscribes when a listener is added, waits for Redis to confirm, and subscribes again after a lost
     * connection. Listeners run on virtual threads. Live events are not here: they are sharded channels
     * ({@code SSUBSCRIBE}), which Spring Data Redis 4.1 does not offer (api {@code live/LiveEvents}). Named as Spring
     * Boot names its own, which then backs off (it would be a second container, with the default phase).
     */
    @Bean(RedisListenerConfigUtils.REDIS_MESSAGE_LISTENER_BEAN_NAME)
    RedisMessageListenerContainer redisMessageListeners(LettuceConnectionFactory factory) {
        SimpleAsyncTaskExecutor listeners = new SimpleAsyncTaskExecutor("redis-message-");
        listeners.setVirtualThreads(true);
        RedisMessageListenerContainer container = new RedisMessageListenerContainer();
        container.setConnectionFactory(factory);
        container.setTaskExecutor(listeners);
        container.setPhase(LISTENER_PHASE);
        return container;
    }

    /** Reconnects after 10 ms at first, doubling up to {@link #MAX_RECONNECT_DELAY}. */
    @Bean
    ClientResourcesBuilderCustomizer boundedReconnectDelay() {
        return resources -> resources.reconnectDelay(Delay.exponential(Duration.ofMillis(10), MAX_RECONNECT_DELAY, 2, TimeUnit.MILLISECONDS));
    }

    /** Before any bean is made: settings of earlier releases, or a URL Boot would refuse quoting it (RedisUrlCheck). */
    @Bean
    static BeanFactoryPostProcessor redisSettingsCheck(Environment environment) {
        return beanFactory -> RedisUrlCheck.check(environment);
    }

    @Bean(destroyMethod = "close")
    RedisConnections redisConnections(LettuceConnectionFactory factory) {
        return new RedisConnections(factory);
    }

    /**
     * A cluster client re-reads the topology on Lettuce's adaptive triggers too (redirects, lost connections), not
     * only every {@code spring.data.redis.lettuce.cluster.refresh.period}: a failover is seen within moments. Spring
     * Boot 4.1 has no property for those triggers.
     */
    @Bean
    LettuceClientOptionsBuilderCustomizer clusterTopologyRefresh(DataRedisProperties properties) {
        return options -> {
            if (options instanceof ClusterClientOptions.Builder cluster) {
                DataRedisProperties.Lettuce.Cluster.Refresh refresh = properties.getLettuce().getCluster().getRefresh();
                RedisConnections.clusterOptions(cluster,
                        Objects.requireNonNullElse(refresh.getPeriod(), RedisConnections.DEFAULT_TOPOLOGY_REFRESH),
                        refresh.isDynamicRefreshSources());
            }
        };
    }
}
