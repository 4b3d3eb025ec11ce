package io.agentrun.platform.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.core.ProducerFactory;

/**
 * {@link KafkaTemplate}s over Spring Boot's producer factory ({@code spring.kafka.producer.*} and {@link ClientDefaults}),
 * one producer per use: each has its client id and its own timeouts, and a slow send of one use (a worker's events
 * waiting out a leader election) does not hold up another's (the api's commands). Call {@link KafkaTemplate#destroy()}
 * when done: it closes the template's producer after sending what it holds.
 */
public final class KafkaTemplates {

    private final ProducerFactory<String, byte[]> factory;
    private final KafkaSettings settings;

    public KafkaTemplates(ProducerFactory<String, byte[]> factory, KafkaSettings settings) {
        this.factory = factory;
        this.settings = settings;
    }

    public KafkaSettings settings() {
        return settings;
    }

    /**
     * A send fails once it is not acknowledged within {@code agentrun.kafka.request-timeout} (the api answers 503 past it).
     */
    public KafkaTemplate<String, byte[]> template(String clientId) {
        return template(clientId, Duration.ZERO);
    }

    /**
     * As {@link #template(String)}, with sends retried (each request bounded by the request timeout) until
     * {@code deliveryTimeout}: for senders that may wait out a leader election rather than fail, like a worker's
     * events (a failed event ends its run's attempt).
     */
    public KafkaTemplate<String, byte[]> template(String clientId, Duration deliveryTimeout) {
        return template(clientId, deliveryTimeout, null);
    }

    /**
     * As {@link #template(String, Duration)}, with this producer's own {@code linger.ms} (null: the factory's): for a
     * sender whose records of many runs should share produce requests, like a worker's events.
     */
    public KafkaTemplate<String, byte[]> template(String clientId, Duration deliveryTimeout, @Nullable Duration linger) {
        int timeoutMs = (int) settings.requestTimeout().toMillis();
        long lingerMs = linger != null ? linger.toMillis() : factoryLingerMs();
        // Kafka refuses a delivery timeout below request timeout + linger.
        long floorMs = timeoutMs + lingerMs;
        Map<String, Object> overrides = new HashMap<>(Map.of(
                ProducerConfig.CLIENT_ID_CONFIG, clientId,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, timeoutMs,
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, timeoutMs,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) Math.max(deliveryTimeout.toMillis(), floorMs)));
        if (linger != null) {
            overrides.put(ProducerConfig.LINGER_MS_CONFIG, (int) lingerMs);
        }
        return new KafkaTemplate<>(factory, overrides);
    }

    private long factoryLingerMs() {
        Object linger = factory.getConfigurationProperties().get(ProducerConfig.LINGER_MS_CONFIG);
        return linger == null ? 0 : Long.parseLong(linger.toString());
    }
}
