package io.agentrun.platform.kafka;

import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.springframework.kafka.core.ConsumerFactory;

/**
 * Consumers without a group, from Spring Boot's consumer factory, for code that assigns the event topic's partitions
 * itself and reads a stretch of them (a run's events, replay, tail, rebuild): nothing is committed, and a broker that
 * cannot be reached fails the read within 15 s instead of hanging it (a {@code spring.kafka.consumer.group-id}, which the
 * services do not set, would join no group: the readers assign and never commit). The caller closes the consumer.
 */
public final class TopicReaders {

    private final ConsumerFactory<String, byte[]> factory;
    private final KafkaSettings settings;

    public TopicReaders(ConsumerFactory<String, byte[]> factory, KafkaSettings settings) {
        this.factory = factory;
        this.settings = settings;
    }

    public KafkaSettings settings() {
        return settings;
    }

    /**
     * @param autoOffsetReset where a partition starts when the offset asked for is gone ({@code earliest}, {@code latest})
     * @param overrides       further consumer settings of this reader
     */
    public Consumer<String, byte[]> open(String clientId, String autoOffsetReset, Map<String, Object> overrides) {
        Properties properties = new Properties();
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        properties.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, autoOffsetReset);
        properties.putAll(overrides);
        return factory.createConsumer(null, clientId, null, properties);
    }

    public Consumer<String, byte[]> open(String clientId, String autoOffsetReset) {
        return open(clientId, autoOffsetReset, Map.of());
    }
}
