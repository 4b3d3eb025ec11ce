package io.agentrun.bench;

import io.agentrun.model.id.Ids;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A topic of a baseline's own on the stack's broker, partitioned like the event topic, with the pipeline's
 * producer settings (idempotent, {@code acks=all}, linger) and one plain consumer that reads it from its end.
 * The consumer belongs to the one thread that polls it.
 */
final class RawTopic implements AutoCloseable {

    static final int PARTITIONS = 12;

    final String name;
    final KafkaProducer<String, String> producer;
    final KafkaConsumer<String, String> consumer;

    /**
     * @param fetchWaitMs 0: the consumer's default fetch settings (answered as soon as one record is there); else how
     *                    long the broker holds a fetch for more, as the relay's ({@code agentrun.relay.fetch-wait})
     */
    RawTopic(String bootstrap, String prefix, int lingerMs, int fetchWaitMs) throws Exception {
        this.name = prefix + Ids.newRunId().substring(4);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(name, PARTITIONS, (short) 1))).all().get();
        }
        producer = new KafkaProducer<>(Map.of("bootstrap.servers", bootstrap, ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true, ProducerConfig.LINGER_MS_CONFIG, lingerMs),
                new StringSerializer(), new StringSerializer());
        Map<String, Object> config = consumerConfig(bootstrap, name);
        if (fetchWaitMs > 0) {
            config.putIfAbsent(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, fetchWaitMs);
            config.putIfAbsent(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, Bench.PIPELINE_FETCH_MIN_BYTES);
        }
        consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer());
        List<TopicPartition> partitions = IntStream.range(0, PARTITIONS).mapToObj(p -> new TopicPartition(name, p)).toList();
        for (int p = 0; p < PARTITIONS; p++) {
            // a first write to each partition, so no measured run meets a partition still getting its leader
            producer.send(new ProducerRecord<>(name, p, "warm", "{}")).get();
        }
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position);
    }

    /**
     * Default fetch settings but the socket's receive buffer, left to the kernel's autotuning. The client's default
     * (64 KiB, which turns autotuning off) overflowed on loopback under an unpaced load: the kernel dropped fetch
     * responses' segments (TcpExtTCPRcvQDrop, 49–81 per 5 s phase, all on the consumer's socket by {@code ss -tmi}),
     * the broker sent them again after the 200 ms minimum retransmission timeout, and every event in them was
     * ~210 ms late: kafka-raw's delivery p99 of 210 ms in every run (docs/performance.md, "kafka-raw's 210 ms").
     * Try other settings with {@code -Dbench.kafka.NAME=VALUE} (e.g. {@code receive.buffer.bytes=65536} shows it).
     */
    static Map<String, Object> consumerConfig(String bootstrap, String groupId) {
        Map<String, Object> config = new HashMap<>(Map.of("bootstrap.servers", bootstrap, ConsumerConfig.GROUP_ID_CONFIG, groupId,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false, CommonClientConfigs.RECEIVE_BUFFER_CONFIG, -1));
        System.getProperties().stringPropertyNames().stream().filter(n -> n.startsWith("bench.kafka."))
                .forEach(n -> config.put(n.substring("bench.kafka.".length()), System.getProperty(n)));
        return config;
    }

    void send(String key, String value) {
        producer.send(new ProducerRecord<>(name, key, value));
    }

    /** Stops a poll under way; the polling thread closes the consumer as it leaves. */
    void wakeup() {
        consumer.wakeup();
    }

    @Override
    public void close() {
        producer.close();
    }
}
