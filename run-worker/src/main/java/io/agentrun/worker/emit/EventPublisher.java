package io.agentrun.worker.emit;

import io.agentrun.model.event.RunEvent;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.KafkaClients;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.springframework.beans.factory.DisposableBean;

/**
 * Writes events to {@code agentrun.thread-events}, keyed by thread id so a thread's events stay in order
 * on one partition. One idempotent producer per worker, shared by all its runs.
 */
public final class EventPublisher implements DisposableBean {

    private final KafkaProducer<String, byte[]> producer;
    private final String topic;
    private final JsonCodec codec;

    public EventPublisher(KafkaClients clients, JsonCodec codec, String clientId) {
        this.producer = clients.producer(clientId);
        this.topic = clients.settings().eventsTopic();
        this.codec = codec;
    }

    public CompletableFuture<RecordMetadata> publish(RunEvent event) {
        CompletableFuture<RecordMetadata> acked = new CompletableFuture<>();
        try {
            producer.send(new ProducerRecord<>(topic, event.partitionKey(), codec.encode(event)), (metadata, error) -> {
                if (error != null) {
                    acked.completeExceptionally(error);
                } else {
                    acked.complete(metadata);
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
        producer.close();
    }
}
