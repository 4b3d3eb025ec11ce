package io.agentrun.api.health;

import io.agentrun.platform.kafka.KafkaClients;
import io.agentrun.platform.redis.RedisConnections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * UP when this node can reach Redis and Kafka and the pipeline behind it has at least one worker (share
 * group member) and one relay (consumer group member): then a request sent here will be answered.
 */
final class PipelineHealthIndicator implements HealthIndicator, DisposableBean {

    private static final long TIMEOUT_MS = 3000;

    private final RedisConnections redis;
    private final KafkaClients clients;
    private final Admin admin;

    PipelineHealthIndicator(RedisConnections redis, KafkaClients clients) {
        this.redis = redis;
        this.clients = clients;
        this.admin = clients.admin("agentrun-api-health");
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
            int workers = admin.describeShareGroups(List.of(clients.settings().workerGroup()))
                    .all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS).values().stream().mapToInt(g -> g.members().size()).sum();
            int relays = admin.describeConsumerGroups(List.of(clients.settings().relayGroup()))
                    .all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS).values().stream().mapToInt(g -> g.members().size()).sum();
            health.withDetail("workers", workers).withDetail("relays", relays);
            return (workers > 0 && relays > 0 ? health : Health.down().withDetail("workers", workers).withDetail("relays", relays)
                    .withDetail("reason", "waiting for at least one run-worker and one event-relay")).build();
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return Health.down().withDetail("kafka", String.valueOf(e.getMessage())).build();
        }
    }

    @Override
    public void destroy() {
        admin.close();
    }
}
