package io.agentrun.e2e;

import io.agentrun.model.event.RunEvent;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.Topics;
import io.agentrun.platform.kafka.RunEventLog;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The whole event topic ({@code agentrun.thread-events}) as written, every partition from its start to its
 * end at the time of the read, grouped by run: what the workers wrote, fenced events included (the relay
 * decides what is applied; the topic keeps everything).
 */
final class EventTopic {

    private static final JsonCodec CODEC = new JsonCodec();

    private EventTopic() {
    }

    /** Run id → its events in partition order. */
    static Map<String, List<RunEvent>> readAll(String bootstrapServers, Duration limit) {
        return read(bootstrapServers, limit, partitions -> partitions);
    }

    /**
     * The events of {@code runId} of the thread {@code threadId}, read from the one partition its key goes to: a read
     * that stays short however many suites wrote to the topic before (a whole-topic read took seconds on a slow machine).
     */
    static List<RunEvent> readRun(String bootstrapServers, String threadId, String runId, Duration limit) {
        return read(bootstrapServers, limit, partitions -> List.of(partitions.get(RunEventLog.partitionOf(threadId, partitions.size()))))
                .getOrDefault(runId, List.of());
    }

    private static Map<String, List<RunEvent>> read(String bootstrapServers, Duration limit,
            UnaryOperator<List<TopicPartition>> which) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, "e2e-event-topic-reader");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        Map<String, List<RunEvent>> byRun = new LinkedHashMap<>();
        try (var consumer = new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> all = new ArrayList<>();
            for (PartitionInfo info : consumer.partitionsFor(Topics.THREAD_EVENTS, limit)) {
                all.add(new TopicPartition(info.topic(), info.partition()));
            }
            all.sort(java.util.Comparator.comparingInt(TopicPartition::partition));
            List<TopicPartition> partitions = which.apply(all);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, limit);
            long deadline = System.nanoTime() + limit.toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("reading " + Topics.THREAD_EVENTS + " to its end took longer than " + limit);
                }
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    TopicPartition partition = new TopicPartition(record.topic(), record.partition());
                    if (record.offset() < end.get(partition)) {
                        RunEvent event = CODEC.decodeEvent(new String(record.value(), StandardCharsets.UTF_8));
                        byRun.computeIfAbsent(event.runId(), id -> new ArrayList<>()).add(event);
                    }
                }
            }
        }
        return byRun;
    }
}
