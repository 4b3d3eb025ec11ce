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
import io.agentrun.platform.kafka.ReplayableListener;
import io.agentrun.platform.webhook.WebhookStore;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.listener.BatchMessageListener;

/**
 * Reads the event topic in a consumer group of its own (a spring-kafka container, {@link WebhookConfiguration}) and
 * turns every run_end into a delivery for each enabled endpoint of the run's project that subscribed to how it ended
 * (and existed when it ended). Kafka is the record: the container commits a batch only after its deliveries are
 * written and hands a batch that failed back after a pause, so a relay that dies re-reads what it had not recorded (a
 * delivery's id is derived from endpoint, run and event, so reading twice records once).
 */
final class WebhookTrigger extends ReplayableListener implements BatchMessageListener<String, byte[]> {

    private static final Logger log = LoggerFactory.getLogger(WebhookTrigger.class);
    private static final byte[] RUN_END = EventType.RUN_END.wireName().getBytes(StandardCharsets.US_ASCII);

    private final WebhookStore store;
    private final JsonCodec codec;

    WebhookTrigger(KafkaClients clients, WebhookStore store, JsonCodec codec) {
        super(clients);
        this.store = store;
        this.codec = codec;
    }

    @Override
    public void onMessage(List<ConsumerRecord<String, byte[]>> records) {
        try {
            for (ConsumerRecord<String, byte[]> record : records) {
                trigger(record);
            }
        } catch (RuntimeException e) {
            log.warn("webhook deliveries not recorded ({}); the batch is read again after a pause", e.getMessage());
            throw e;
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
        RunEvent event;
        try {
            String json = new String(record.value(), StandardCharsets.UTF_8);
            if (!"run_end".equals(codec.peekHeader(json).type())) {
                return;
            }
            event = codec.decodeEvent(json);
        } catch (CodecException e) {
            return; // not an event (the relay logs those): skipped, never read again and again
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
}
