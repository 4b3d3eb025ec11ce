package io.agentrun.platform.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions.RefreshTrigger;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
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

    @Test
    void reconnectsAreTriedSoonAndNeverMoreThanHalfASecondApart() {
        ClientResources.Builder builder = ClientResources.builder();
        new RedisClientConfiguration().boundedReconnectDelay().customize(builder);
        ClientResources resources = builder.build();
        try {
            Delay delay = resources.reconnectDelay();
            assertThat(delay.createDelay(1)).isEqualTo(Duration.ofMillis(10));
            assertThat(delay.createDelay(6)).isEqualTo(Duration.ofMillis(32));
            assertThat(delay.createDelay(30)).isEqualTo(RedisClientConfiguration.MAX_RECONNECT_DELAY).isEqualTo(Duration.ofMillis(500));
        } finally {
            resources.shutdown();
        }
    }
}
