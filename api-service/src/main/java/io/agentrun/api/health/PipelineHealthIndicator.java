package io.agentrun.api.health;

import io.agentrun.platform.kafka.ClusterAdmin;
import io.agentrun.platform.kafka.KafkaSettings;
import io.agentrun.platform.redis.RedisConnections;
import java.time.Duration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * UP when this node can reach Redis and Kafka and the pipeline behind it has at least one worker (share
 * group member) and one relay (consumer group member): then a request sent here will be answered.
 */
final class PipelineHealthIndicator implements HealthIndicator {

    private static final Duration TIMEOUT = Duration.ofSeconds(3);

    private final RedisConnections redis;
    private final ClusterAdmin cluster;
    private final KafkaSettings kafka;

    PipelineHealthIndicator(RedisConnections redis, ClusterAdmin cluster, KafkaSettings kafka) {
        this.redis = redis;
        this.cluster = cluster;
        this.kafka = kafka;
    }

    @Override
    public Health health() {
        Health.Builder health = Health.up();
        try {
            health.withDetail("redis", redis.sync().ping());
        } catch (RuntimeException e) {
            return Health.down().withDetail("redis", e.getMessage()).build();
        }
        try {
            int workers = cluster.shareGroupMembers(kafka.workerGroup(), TIMEOUT);
            int relays = cluster.consumerGroupMembers(kafka.relayGroup(), TIMEOUT);
            health.withDetail("workers", workers).withDetail("relays", relays);
            return (workers > 0 && relays > 0 ? health : Health.down().withDetail("workers", workers).withDetail("relays", relays)
                    .withDetail("reason", "waiting for at least one run-worker and one event-relay")).build();
        } catch (RuntimeException e) {
            return Health.down().withDetail("kafka", String.valueOf(e.getMessage())).build();
        }
    }
}
