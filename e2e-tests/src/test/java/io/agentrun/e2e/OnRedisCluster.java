package io.agentrun.e2e;

import io.agentrun.infra.testing.RealInfrastructure;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a pipeline suite again on a Redis Cluster (three primaries, a replica each; live events over sharded pub/sub):
 * {@code @ExtendWith(OnRedisCluster.class)}, usually beside {@link OnKafkaCluster}. Like {@link OnKafkaCluster}, it
 * runs around the suite's own {@code @BeforeAll}/{@code @AfterAll} and checks afterwards that the suite ran on it.
 */
final class OnRedisCluster implements BeforeAllCallback, AfterAllCallback {

    @Override
    public void beforeAll(ExtensionContext context) {
        Pipeline.useRedisCluster(true);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        Pipeline.useRedisCluster(false);
        if (!RealInfrastructure.redisCluster().url().equals(Pipeline.lastRedis())) {
            throw new AssertionError(context.getDisplayName() + " did not run on the Redis Cluster but on " + Pipeline.lastRedis());
        }
    }
}
