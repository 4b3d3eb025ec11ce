package io.agentrun.platform.redis;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.util.Map;
import org.junit.jupiter.api.Test;
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
    void severalNodesOrAnotherSchemeAreRefusedWithoutQuotingTheUrl() {
        assertThatIllegalStateException()
                .isThrownBy(() -> RedisUrlCheck.check(environment(Map.of("SPRING_DATA_REDIS_URL",
                        "redis://:s3cret@a:6379,redis://:s3cret@b:6379"))))
                .withMessageContaining("SPRING_DATA_REDIS_CLUSTER_NODES").withMessageNotContaining("s3cret");
        assertThatIllegalStateException()
                .isThrownBy(() -> RedisUrlCheck.check(environment(Map.of("SPRING_DATA_REDIS_URL", "redis-sentinel://:s3cret@a:26379#m"))))
                .withMessageContaining("SPRING_DATA_REDIS_SENTINEL_MASTER").withMessageNotContaining("s3cret");
    }
}
