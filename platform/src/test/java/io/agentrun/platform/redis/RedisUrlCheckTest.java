package io.agentrun.platform.redis;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

class RedisUrlCheckTest {

    private static StandardEnvironment environment(Map<String, Object> variables) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().remove(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
        environment.getPropertySources().addFirst(new SystemEnvironmentPropertySource("env", variables));
        return environment;
    }

    @Test
    void oneRedisOrRedissUriPasses() {
        assertThatCode(() -> RedisUrlCheck.check(environment(Map.of("SPRING_DATA_REDIS_URL", "rediss://:pw@host:6380/1"))))
                .doesNotThrowAnyException();
        assertThatCode(() -> RedisUrlCheck.check(environment(Map.of()))).doesNotThrowAnyException();
    }

    @Test
    void anEarlierReleasesSettingIsRefusedWithWhatReplacesIt() {
        assertThatIllegalStateException().isThrownBy(() -> RedisUrlCheck.check(environment(Map.of("AGENTRUN_REDIS_CLUSTER", "true"))))
                .withMessageContaining("agentrun.redis.cluster is no longer read").withMessageContaining("SPRING_DATA_REDIS_CLUSTER_NODES");
    }

    @Test
    void severalNodesInTheUrlAreRefusedWithoutQuotingIt() {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new MapPropertySource("p",
                Map.of("spring.data.redis.url", "redis://:s3cret@a:6379,redis://:s3cret@b:6379")));
        assertThatIllegalStateException().isThrownBy(() -> RedisUrlCheck.check(environment))
                .withMessageContaining("SPRING_DATA_REDIS_CLUSTER_NODES").withMessageNotContaining("s3cret");
    }

    @Test
    void anotherSchemeIsRefusedWithoutQuotingTheUrl() {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new MapPropertySource("p",
                Map.of("spring.data.redis.url", "redis-sentinel://:s3cret@a:26379#mymaster")));
        assertThatIllegalStateException().isThrownBy(() -> RedisUrlCheck.check(environment))
                .withMessageContaining("SPRING_DATA_REDIS_SENTINEL_MASTER").withMessageNotContaining("s3cret");
    }
}
