package io.agentrun.relay.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.model.webhook.NewWebhookEndpoint;
import io.agentrun.model.webhook.WebhookDelivery;
import io.agentrun.model.webhook.WebhookEndpoint;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.webhook.WebhookSettings;
import io.agentrun.platform.webhook.WebhookStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Recording a delivery is several Redis writes (its keys are in different slots of a Redis Cluster). A relay that
 * dies between them reads the run_end again, and recording it again must complete the delivery, never reset what a
 * dispatcher wrote since, and never make a settled delivery pending again.
 */
@ExtendWith(RealInfrastructure.class)
class WebhookStoreIT {

    private static final String MESSAGE = "{\"type\":\"run.completed\"}";
    private static RedisConnections redis;
    private static WebhookStore store;
    private static String projectId;
    private static WebhookEndpoint endpoint;

    @BeforeAll
    static void start() {
        redis = RedisConnections.connect(RealInfrastructure.redisUrl());
        byte[] key = new byte[32];
        WebhookSettings settings = new WebhookSettings(Base64.getEncoder().encodeToString(key), List.of(), Duration.ofSeconds(10),
                List.of(Duration.ofSeconds(5)), Duration.ofHours(24), 64, 4, Duration.ofSeconds(30), 1000, Duration.ofHours(24));
        store = new WebhookStore(redis, new JsonCodec(), settings, Clock.systemUTC());
        projectId = "proj-" + UUID.randomUUID();
        endpoint = store.create(projectId, new NewWebhookEndpoint("https://hooks.example.com/x", null, null, null)).endpoint();
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    @Test
    void aDeliveryLeftWithoutItsDueEntryIsCompletedWhenTheEventIsReadAgain() {
        String runId = "run_" + UUID.randomUUID();
        assertThat(store.enqueue(projectId, endpoint, "run.completed", runId, MESSAGE)).isTrue();
        String id = onlyDeliveryOf(runId);
        // What a relay killed after the delivery's hash and before its due entry leaves behind.
        redis.sync().zrem(RedisKeys.webhooksDue(), id);
        redis.sync().hdel(RedisKeys.webhookDelivery(id), "enqueued");

        assertThat(store.enqueue(projectId, endpoint, "run.completed", runId, MESSAGE)).as("completed by the second read").isTrue();

        assertThat(redis.sync().zscore(RedisKeys.webhooksDue(), id)).as("due").isNotNull();
        assertThat(store.enqueue(projectId, endpoint, "run.completed", runId, MESSAGE)).as("a third read adds nothing").isFalse();
    }

    @Test
    void readingTheEventAgainKeepsTheAttemptsAndDoesNotMakeADeliveredOnePendingAgain() {
        String runId = "run_" + UUID.randomUUID();
        store.enqueue(projectId, endpoint, "run.completed", runId, MESSAGE);
        String id = onlyDeliveryOf(runId);
        WebhookStore.Pending pending = store.load(id).orElseThrow();
        store.recordAttempt(pending, new WebhookDelivery.Attempt(Instant.now(), 200, "ok", 3), WebhookDelivery.DELIVERED, null);
        redis.sync().hdel(RedisKeys.webhookDelivery(id), "enqueued"); // as if the relay died before its last write

        store.enqueue(projectId, endpoint, "run.completed", runId, MESSAGE);

        WebhookStore.Pending after = store.load(id).orElseThrow();
        assertThat(after.status()).isEqualTo(WebhookDelivery.DELIVERED);
        assertThat(after.attempts()).isEqualTo(1);
        assertThat(store.delivery(endpoint.endpointId(), id).orElseThrow().attemptLog()).hasSize(1);
    }

    @Test
    void aDeliveryTakenByADispatcherKeepsItsLeaseWhenTheEventIsReadAgain() {
        String runId = "run_" + UUID.randomUUID();
        store.enqueue(projectId, endpoint, "run.completed", runId, MESSAGE);
        String id = onlyDeliveryOf(runId);
        redis.sync().hdel(RedisKeys.webhookDelivery(id), "enqueued");
        double leaseEnds = System.currentTimeMillis() + 60_000;
        redis.sync().zadd(RedisKeys.webhooksDue(), leaseEnds, id); // taken: due again when its lease ends

        store.enqueue(projectId, endpoint, "run.completed", runId, MESSAGE);

        assertThat(redis.sync().zscore(RedisKeys.webhooksDue(), id)).as("not due at once: it is being sent").isEqualTo(leaseEnds);
    }

    private static String onlyDeliveryOf(String runId) {
        return store.deliveries(endpoint.endpointId(), 1000).stream().filter(d -> d.runId().equals(runId))
                .map(WebhookDelivery::deliveryId).findFirst().orElseThrow();
    }
}
