package io.agentrun.platform.kafka;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;

/**
 * What our clients need on top of {@code spring.kafka.*}. Applied to Spring Boot's producer and consumer factories by
 * their customizers ({@link KafkaConfiguration}), and by the ops commands to factories they make from the same properties.
 *
 * <p>Some settings are the contract and always win: keys are thread ids (strings), values are our JSON as bytes, and
 * producers are idempotent with {@code acks=all} (an acknowledged event survives the loss of a broker; docs/architecture.md).
 * The others are defaults that {@code spring.kafka.producer.properties.*} / {@code spring.kafka.consumer.properties.*}
 * may change:
 * <ul>
 *   <li>{@code linger.ms=0} (Kafka 4 made it 5) and ONE request in flight per broker: batch while busy, never wait when
 *   idle. (The worker's events spend a stated share of the latency budget on a linger of their own instead:
 *   {@link KafkaTemplates#template(String, java.time.Duration, java.time.Duration)}, docs/architecture.md "Batching".)
 *   An idle producer sends a record at once; while its request is in flight, records accumulate and leave together
 *   in the next one, so the number of produce requests follows the broker's pace, not the number of records (with five in
 *   flight, Kafka's default, a burst of deltas left as five small requests, each a full request's work for the broker,
 *   the follower fetches and the relay's fetch).</li>
 *   <li>{@code receive.buffer.bytes=-1}: the kernel's autotuned socket buffer. The client's 64 KiB overflowed on loopback
 *   under load, the kernel dropped segments and the broker resent them after TCP's 200 ms minimum retransmission timeout
 *   (the bench's kafka-raw delivery p99 sat at ~210 ms for that; docs/performance.md).</li>
 * </ul>
 */
public final class ClientDefaults {

    private ClientDefaults() {
    }

    public static void producer(DefaultKafkaProducerFactory<?, ?> factory) {
        Map<String, Object> config = new HashMap<>();
        Map<String, Object> current = factory.getConfigurationProperties();
        if (!current.containsKey(ProducerConfig.LINGER_MS_CONFIG)) {
            config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        }
        if (!current.containsKey(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION)) {
            config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        }
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        factory.updateConfigs(config);
    }

    public static void consumer(DefaultKafkaConsumerFactory<?, ?> factory) {
        Map<String, Object> config = new HashMap<>();
        if (!factory.getConfigurationProperties().containsKey(ConsumerConfig.RECEIVE_BUFFER_CONFIG)) {
            config.put(ConsumerConfig.RECEIVE_BUFFER_CONFIG, -1);
        }
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        factory.updateConfigs(config);
    }

    /** A consumer factory as Spring Boot's, for code that runs without an application context (the ops commands). */
    public static DefaultKafkaConsumerFactory<String, byte[]> consumerFactory(KafkaProperties properties) {
        DefaultKafkaConsumerFactory<String, byte[]> factory = new DefaultKafkaConsumerFactory<>(properties.buildConsumerProperties());
        consumer(factory);
        return factory;
    }
}
