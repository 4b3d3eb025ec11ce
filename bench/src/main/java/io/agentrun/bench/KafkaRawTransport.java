package io.agentrun.bench;

import io.agentrun.model.id.Ids;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The {@code kafka-raw} baseline, the limit of the log hop: the same envelopes produced to the same
 * broker with the pipeline's producer settings (idempotent, {@code acks=all}, the same linger) and read
 * back by one plain consumer with default fetch settings, keyed and partitioned like the event topic.
 */
final class KafkaRawTransport implements Transport {

    private static final int PARTITIONS = 12;

    private final Script script;
    private final long delayMs;
    private final String topic = "bench.raw-events." + Ids.newRunId().substring(4);
    private final KafkaProducer<String, String> producer;
    private final KafkaConsumer<String, String> consumer;
    private final Map<String, RunWatch> watches = new ConcurrentHashMap<>();
    private final Thread poller;
    private volatile boolean running = true;

    KafkaRawTransport(String bootstrap, Script script, long delayMs, int lingerMs) throws Exception {
        this.script = script;
        this.delayMs = delayMs;
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get();
        }
        producer = new KafkaProducer<>(Map.of("bootstrap.servers", bootstrap, ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true, ProducerConfig.LINGER_MS_CONFIG, lingerMs),
                new StringSerializer(), new StringSerializer());
        Map<String, Object> config = new java.util.HashMap<>(Map.of("bootstrap.servers", bootstrap, ConsumerConfig.GROUP_ID_CONFIG, topic,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false));
        // settings to try, as -Dbench.kafka.NAME=VALUE (e.g. group.protocol=consumer, the relay's)
        System.getProperties().stringPropertyNames().stream().filter(n -> n.startsWith("bench.kafka."))
                .forEach(n -> config.put(n.substring("bench.kafka.".length()), System.getProperty(n)));
        consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer());
        List<TopicPartition> partitions = java.util.stream.IntStream.range(0, PARTITIONS)
                .mapToObj(p -> new TopicPartition(topic, p)).toList();
        for (int p = 0; p < PARTITIONS; p++) {
            // a first write to each partition, so no measured run meets a partition still getting its leader
            producer.send(new ProducerRecord<>(topic, p, "warm", "{}")).get();
        }
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(consumer::position);
        poller = Thread.ofPlatform().daemon().name("kafka-raw-poll").start(this::poll);
    }

    @Override
    public String name() {
        return "kafka-raw";
    }

    @Override
    public void run(int slot, RunWatch watch) throws Exception {
        String runId = Ids.newRunId();
        watches.put(runId, watch);
        try {
            script.play("kafka-raw", runId, runId, delayMs,
                    envelope -> producer.send(new ProducerRecord<>(topic, runId, envelope)));
            if (!watch.awaitEnd(60_000)) {
                throw new TimeoutException("no run_end within 60 s");
            }
        } finally {
            watches.remove(runId);
        }
    }

    private void poll() {
        try {
            while (running) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    RunWatch watch = watches.get(record.key());
                    if (watch != null) {
                        watch.onEvent(SseEvent.parse(record.value()));
                    }
                }
            }
        } catch (WakeupException e) {
            // closing
        } finally {
            consumer.close();
        }
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        consumer.wakeup();
        poller.join(10_000);
        producer.close();
    }
}
