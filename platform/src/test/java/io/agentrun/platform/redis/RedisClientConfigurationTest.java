package io.agentrun.platform.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions.RefreshTrigger;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;

/** The options Spring Boot's factory is built with; no Redis needed. */
class RedisClientConfigurationTest {

    @Test
    void aClusterClientReReadsTheTopologyOnTheConfiguredPeriodAndOnEveryAdaptiveTrigger() {
        DataRedisProperties properties = new DataRedisProperties();
        properties.getLettuce().getCluster().getRefresh().setPeriod(Duration.ofSeconds(3));
        ClusterClientOptions.Builder builder = ClusterClientOptions.builder();

        new RedisClientConfiguration().clusterTopologyRefresh(properties).customize(builder);

        ClusterTopologyRefreshOptions refresh = builder.build().getTopologyRefreshOptions();
        assertThat(refresh.isPeriodicRefreshEnabled()).isTrue();
        assertThat(refresh.getRefreshPeriod()).isEqualTo(Duration.ofSeconds(3));
        assertThat(refresh.getAdaptiveRefreshTriggers()).containsExactlyInAnyOrder(RefreshTrigger.values());
        assertThat(builder.build().getTimeoutOptions().isTimeoutCommands()).isTrue();
    }

    @Test
    void withoutAPeriodTheDefaultOneIsUsed() {
        ClusterClientOptions.Builder builder = ClusterClientOptions.builder();

        new RedisClientConfiguration().clusterTopologyRefresh(new DataRedisProperties()).customize(builder);

        assertThat(builder.build().getTopologyRefreshOptions().getRefreshPeriod()).isEqualTo(RedisConnections.DEFAULT_TOPOLOGY_REFRESH);
    }

    @Test
    void aSingleNodeClientIsLeftAsBootBuiltIt() {
        ClientOptions.Builder builder = ClientOptions.builder();

        new RedisClientConfiguration().clusterTopologyRefresh(new DataRedisProperties()).customize(builder);

        assertThat(builder.build()).isNotInstanceOf(ClusterClientOptions.class);
    }
}
