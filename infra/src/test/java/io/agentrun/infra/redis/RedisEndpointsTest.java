package io.agentrun.infra.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.Map;
import org.junit.jupiter.api.Test;

class RedisEndpointsTest {

    @Test
    void oneUriIsSpringBootsUrl() {
        assertThat(RedisEndpoints.properties("redis://localhost:6380/0")).isEqualTo(Map.of("spring.data.redis.url", "redis://localhost:6380/0"));
        assertThat(RedisEndpoints.environment(" redis://localhost:6380 ")).isEqualTo(Map.of("REDIS_URL", "redis://localhost:6380"));
    }

    @Test
    void severalUrisAreAClustersSeedNodesWithTheFirstUriForCredentials() {
        String url = "redis://:secret@a:7000, redis://b:7001,redis://c";
        assertThat(RedisEndpoints.properties(url)).isEqualTo(Map.of("spring.data.redis.cluster.nodes", "a:7000,b:7001,c:6379"));
        assertThat(RedisEndpoints.environment(url)).isEqualTo(Map.of(
                "REDIS_URL", "redis://:secret@a:7000",
                "SPRING_DATA_REDIS_CLUSTER_NODES", "a:7000,b:7001,c:6379"));
    }

    @Test
    void noUriIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> RedisEndpoints.properties(" , "));
    }
}
