package io.agentrun.worker.emit;

import io.agentrun.model.event.RunEvent;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.Topics;
import io.agentrun.platform.kafka.KafkaTemplates;
import io.agentrun.platform.observe.Tracing;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.kafka.core.KafkaProducerException;
import org.springframework.kafka.core.KafkaTemplate;

/**
 * Writes events to {@code agentrun.thread-events}, keyed by thread id so a thread's events stay in order
 * on one partition. One idempotent producer per worker, shared by all its runs. The template is neither observed
 * nor timed: that would be a span and a timer sample per delta; the run's {@code traceparent} is set from the run's
 * context instead, and the worker counts what it publishes itself ({@link Listener}).
 */
public final class EventPublisher implements DisposableBean {

    private final KafkaTemplate<String, byte[]> producer;
    private final String topic;
    private final JsonCodec codec;
    private final Listener listener;

    /** Hears each event as it is published (metrics); runs on the run's thread, so it must be quick. */
    @FunctionalInterface
    public interface Listener {
        void published(RunEvent event);
    }

    /**
     * @param deliveryTimeout how long a send is retried before it fails (and with it the run's attempt): long
     *                        enough to outlast a partition leader's election when a broker of a cluster is lost
     * @param linger          how long an event waits for others (of any run) to share its produce request
     */
    public EventPublisher(KafkaTemplates templates, JsonCodec codec, String clientId, java.time.Duration deliveryTimeout,
            java.time.Duration linger, Listener listener) {
        this.producer = templates.template(clientId, deliveryTimeout, linger);
        producer.setMicrometerEnabled(false);
        this.topic = templates.settings().eventsTopic();
        this.codec = codec;
        this.listener = listener;
    }

    public CompletableFuture<RecordMetadata> publish(RunEvent event) {
        return publish(event, null);
    }

    /** @param traceparent the run's W3C trace context, as the record's {@code traceparent} header (null: none) */
    public CompletableFuture<RecordMetadata> publish(RunEvent event, byte @Nullable [] traceparent) {
        listener.published(event);
        CompletableFuture<RecordMetadata> acked = new CompletableFuture<>();
        try {
            ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, event.partitionKey(), codec.encode(event));
            record.headers().add(Topics.EVENT_TYPE_HEADER, event.type().wireName().getBytes(StandardCharsets.US_ASCII));
            if (traceparent != null) {
                record.headers().add(Tracing.TRACEPARENT, traceparent);
            }
            producer.send(record).whenComplete((result, error) -> {
                if (error != null) {
                    acked.completeExceptionally(error instanceof KafkaProducerException k && k.getCause() != null ? k.getCause() : error);
                } else {
                    acked.complete(result.getRecordMetadata());
                }
            });
        } catch (RuntimeException e) {
            // send() itself throws when metadata cannot be fetched within max.block.ms
            acked.completeExceptionally(e);
        }
        return acked;
    }

    @Override
    public void destroy() {
        producer.destroy();
    }
}
