package io.agentrun.relay.webhook;

import io.agentrun.model.event.EventData;
import io.agentrun.model.event.EventType;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.json.CodecException;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.Topics;
import io.agentrun.model.thread.ThreadDeleted;
import io.agentrun.model.webhook.WebhookEndpoint;
import io.agentrun.model.webhook.WebhookEvents;
import io.agentrun.model.webhook.WebhookMessage;
import io.agentrun.platform.kafka.KafkaClients;
import io.agentrun.platform.kafka.PartitionRewind;
import io.agentrun.platform.webhook.WebhookStore;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Reads the event topic in a consumer group of its own and turns every run_end into a delivery for each enabled
 * endpoint of the run's project that subscribed to how it ended (and existed when it ended). Kafka is the record: offsets are committed only
 * after the deliveries are written, so a relay that dies re-reads what it had not recorded (a delivery's id is
 * derived from endpoint, run and event, so reading twice records once).
 */
public final class WebhookTrigger implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(WebhookTrigger.class);
    private static final Duration POLL = Duration.ofMillis(200);
    private static final byte[] RUN_END = EventType.RUN_END.wireName().getBytes(StandardCharsets.US_ASCII);

    private final KafkaClients clients;
    private final String group;
    private final WebhookStore store;
    private final JsonCodec codec;
    private final PartitionRewind replay = new PartitionRewind();
    private volatile boolean running;
    private volatile KafkaConsumer<String, byte[]> consumer;
    private Thread loop;

    public WebhookTrigger(KafkaClients clients, String group, WebhookStore store, JsonCodec codec) {
        this.clients = clients;
        this.group = group;
        this.store = store;
        this.codec = codec;
    }

    @Override
    public void start() {
        Map<String, Object> config = clients.consumer("webhooks-" + ProcessHandle.current().pid(), group);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        // From the start of the topic the first time the group runs (nothing is missed while it joins); events from
        // before an endpoint existed are not its business and are skipped below.
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500);
        // A webhook may wait half a second more; the broker answers this group's fetches in batches instead of one per
        // event (with every event read twice, by the relays and by this group, the fetches were measurable: bench).
        config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 500);
        config.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, 64 * 1024);
        consumer = new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer());
        consumer.subscribe(List.of(clients.settings().eventsTopic()));
        running = true;
        loop = Thread.ofPlatform().name("webhook-trigger").start(this::runLoop);
    }

    private void runLoop() {
        long backoffMs = 100;
        try {
            while (running) {
                ConsumerRecords<String, byte[]> records = ConsumerRecords.empty();
                try {
                    if (!replay.applyIfAsked(consumer).isEmpty()) {
                        log.warn("Redis's topology changed (a failover may have lost acknowledged writes): recording deliveries again");
                    }
                    records = consumer.poll(POLL);
                    for (ConsumerRecord<String, byte[]> record : records) {
                        trigger(record);
                    }
                    if (!records.isEmpty()) {
                        consumer.commitSync();
                    }
                    backoffMs = 100;
                } catch (WakeupException e) {
                    return;
                } catch (RuntimeException e) {
                    // Redis or Kafka unreachable: read the batch again, after a pause.
                    log.warn("webhook deliveries not recorded ({}); reading again in {} ms", e.getMessage(), backoffMs);
                    pause(backoffMs);
                    backoffMs = Math.min(backoffMs * 2, 5_000);
                    rewind(records);
                }
            }
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    private void trigger(ConsumerRecord<String, byte[]> record) {
        if (record.headers().lastHeader(ThreadDeleted.KIND_HEADER) != null || record.value() == null) {
            return;
        }
        Header typeHeader = record.headers().lastHeader(Topics.EVENT_TYPE_HEADER);
        if (typeHeader != null && !Arrays.equals(typeHeader.value(), RUN_END)) {
            return; // most records: skipped without decoding (a relay reads every event twice, once for this)
        }
        String json = new String(record.value(), StandardCharsets.UTF_8);
        if (!"run_end".equals(codec.peekHeader(json).type())) {
            return;
        }
        RunEvent event;
        try {
            event = codec.decodeEvent(json);
        } catch (CodecException e) {
            return; // not an event: the relay counts those
        }
        if (event.type() != EventType.RUN_END || !(event.data() instanceof EventData.RunEnd end)) {
            return;
        }
        Optional<String> type = WebhookEvents.of(end.status());
        if (type.isEmpty()) {
            return;
        }
        List<WebhookEndpoint> endpoints = store.list(event.projectId()).stream()
                .filter(e -> e.wants(type.get()) && !event.createdAt().isBefore(e.createdAt())).toList();
        if (endpoints.isEmpty()) {
            return;
        }
        String message = codec.write(new WebhookMessage(type.get(), event.createdAt(), new WebhookMessage.Run(event.runId(),
                event.threadId(), event.projectId(), event.agentId(), end.status().wireName(), end.output(), end.usage(),
                end.durationMs(), event.createdAt())));
        for (WebhookEndpoint endpoint : endpoints) {
            store.enqueue(event.projectId(), endpoint, type.get(), event.runId(), message);
        }
    }

    /**
     * Reads the run_ends from {@code since} again: a Redis Cluster failover may have dropped deliveries recorded just
     * before it. Recording is idempotent, so a delivery Redis kept is not recorded twice; one it lost is recorded
     * again and sent, perhaps a second time, under its stable {@code webhook-id}.
     */
    public void replaySince(java.time.Instant since) {
        replay.ask(since);
    }

    /** Back to the first record of the batch on every partition it came from. */
    private void rewind(ConsumerRecords<String, byte[]> batch) {
        try {
            for (TopicPartition partition : batch.partitions()) {
                consumer.seek(partition, batch.records(partition).getFirst().offset());
            }
        } catch (RuntimeException e) {
            log.warn("could not rewind the webhook consumer ({}); it reads on from its last commit after a rebalance", e.getMessage());
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis); // back-off while a dependency is down, not synchronisation
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void stop() {
        running = false;
        if (consumer != null) {
            consumer.wakeup();
        }
        if (loop != null) {
            try {
                loop.join(Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }
}
