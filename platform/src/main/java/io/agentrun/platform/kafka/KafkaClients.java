package io.agentrun.platform.kafka;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;
import org.springframework.util.backoff.BackOff;

/**
 * Client configuration shared by all services, in one place. Producers (spring-kafka's {@link KafkaTemplate} over
 * one Kafka producer each) are idempotent with {@code acks=all}, no linger and ONE request in flight per broker:
 * batch while busy, never wait when idle. An idle producer sends a record at once; while its request is in flight,
 * records accumulate and leave together in the next one, so the number of produce requests follows the broker's
 * pace, not the number of records (with five in flight, Kafka's default, a burst of deltas left as five small
 * requests, each a full request's work for the broker, the follower fetches and the relay's fetch). Consumers in a group are spring-kafka listener containers ({@link #batchContainer}).
 */
public final class KafkaClients {

    private final KafkaSettings settings;

    public KafkaClients(KafkaSettings settings) {
        this.settings = settings;
    }

    public KafkaSettings settings() {
        return settings;
    }

    public Map<String, Object> common(String clientId) {
        Map<String, Object> config = new HashMap<>();
        config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, settings.bootstrapServers());
        config.put(CommonClientConfigs.CLIENT_ID_CONFIG, clientId);
        return config;
    }

    /**
     * String keys (thread ids), byte values (JSON); a send fails once it is not acknowledged within the request
     * timeout (the api answers 503 past it). The template owns one producer; {@link #close} it when done.
     */
    public KafkaTemplate<String, byte[]> template(String clientId) {
        return template(clientId, settings.requestTimeout().plus(settings.lingerTime()));
    }

    /**
     * As {@link #template(String)}, with sends retried (each request bounded by the request timeout) until
     * {@code deliveryTimeout}: for senders that may wait out a leader election rather than fail, like a worker's
     * events (a failed event ends its run's attempt).
     */
    public KafkaTemplate<String, byte[]> template(String clientId, java.time.Duration deliveryTimeout) {
        Map<String, Object> config = common(clientId);
        int timeoutMs = (int) settings.requestTimeout().toMillis();
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.LINGER_MS_CONFIG, (int) settings.lingerTime().toMillis());
        config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeoutMs);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, timeoutMs);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
                (int) Math.max(deliveryTimeout.toMillis(), timeoutMs + settings.lingerTime().toMillis()));
        return new KafkaTemplate<>(new DefaultKafkaProducerFactory<>(config, new StringSerializer(), new ByteArraySerializer()));
    }

    /** Closes the producer of a template made by {@link #template}, after sending what it holds. */
    public static void close(KafkaTemplate<String, byte[]> template) {
        if (template.getProducerFactory() instanceof DisposableBean factory) {
            try {
                factory.destroy();
            } catch (Exception e) {
                throw new IllegalStateException("could not close the producer", e);
            }
        }
    }

    /**
     * Settings of a consumer without a group, for the operators' commands that assign the event topic's partitions
     * themselves (replay, tail, rebuild): nothing is committed, and a broker that cannot be reached fails the command
     * within 15 s instead of hanging it.
     *
     * @param autoOffsetReset where a partition starts when the offset asked for is gone ({@code earliest}, {@code latest})
     */
    public Map<String, Object> commandReader(String clientId, String autoOffsetReset) {
        Map<String, Object> config = common(clientId);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, autoOffsetReset);
        return config;
    }

    /**
     * Base consumer settings; the caller adds group, deserializers and mode-specific settings. The socket's receive
     * buffer is the kernel's (autotuned): the client's 64 KiB overflowed on loopback under load, the kernel dropped
     * segments and the broker resent them after TCP's 200 ms minimum retransmission timeout (the bench's kafka-raw
     * delivery p99 sat at ~210 ms for that; docs/performance.md).
     */
    public Map<String, Object> consumer(String clientId, String groupId) {
        Map<String, Object> config = common(clientId);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        config.put(ConsumerConfig.RECEIVE_BUFFER_CONFIG, -1);
        return config;
    }

    /**
     * A listener container (spring-kafka) over one consumer: it hands each poll's records to the listener of
     * {@code properties} as one batch, on the consumer's own thread, and commits offsets as {@code properties} say,
     * only for batches the listener returned from. A batch the listener threw on is handed to it again after
     * {@code retry}'s pause, for ever: every failure counts as retryable, so a batch is never skipped, whatever the
     * exception (listeners whose every step is idempotent). The container starts and stops with the application
     * context; stopping, or giving up partitions in a rebalance, commits what was done.
     *
     * @param consumerConfig from {@link #consumer}, with the caller's settings added
     */
    public KafkaMessageListenerContainer<String, byte[]> batchContainer(Map<String, Object> consumerConfig, ContainerProperties properties,
            BackOff retry) {
        Map<String, Object> config = new HashMap<>(consumerConfig);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        KafkaMessageListenerContainer<String, byte[]> container = new KafkaMessageListenerContainer<>(
                new DefaultKafkaConsumerFactory<>(config, new StringDeserializer(), new ByteArrayDeserializer()), properties);
        DefaultErrorHandler retrying = new DefaultErrorHandler(retry);
        retrying.setClassifications(Map.of(), true);
        container.setCommonErrorHandler(retrying);
        return container;
    }

    public Admin admin(String clientId) {
        Map<String, Object> config = common(clientId);
        config.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        config.put(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        return Admin.create(config);
    }
}
