package io.agentrun.e2e;

import io.agentrun.infra.testing.RealInfrastructure;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a pipeline suite again on the three-node Kafka cluster (replication factor 3, {@code min.insync.replicas=2},
 * producers {@code acks=all}): {@code @ExtendWith({OnKafkaCluster.class, OnRedisCluster.class}) class XOnClustersIT extends XIT {}}. Class
 * extensions run before the suite's {@code @BeforeAll} and after its {@code @AfterAll}, so the suite's pipelines
 * start on the cluster and later suites on the JVM's single broker again.
 */
final class OnKafkaCluster implements BeforeAllCallback, AfterAllCallback {

    @Override
    public void beforeAll(ExtensionContext context) {
        Pipeline.useKafkaCluster(true);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        Pipeline.useKafkaCluster(false);
        if (!RealInfrastructure.kafkaCluster().bootstrapServers().equals(Pipeline.lastKafka())) {
            throw new AssertionError(context.getDisplayName() + " did not run on the Kafka cluster but on " + Pipeline.lastKafka());
        }
    }
}
