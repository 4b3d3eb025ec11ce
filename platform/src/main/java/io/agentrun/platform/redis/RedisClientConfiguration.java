package io.agentrun.platform.redis;

import io.lettuce.core.cluster.ClusterClientOptions;
import java.util.Objects;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

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
