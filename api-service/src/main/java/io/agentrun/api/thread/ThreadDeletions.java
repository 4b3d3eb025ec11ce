package io.agentrun.api.thread;

import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.thread.ThreadDeleted;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.RunLibrary;
import io.agentrun.platform.store.ThreadDeletion;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.kafka.KafkaException;
import org.springframework.kafka.core.KafkaTemplate;

/**
 * Deletes threads: first the deletion's record in the events topic, keyed by the thread so that it follows
 * all of the thread's events (a rebuild or a replay meets it after them); then, once Kafka has it, the
 * thread's state in Redis. Should the node die in between, the relays apply the record themselves.
 */
final class ThreadDeletions implements DisposableBean {

    private final KafkaTemplate<String, byte[]> producer;
    private final String eventsTopic;
    private final Duration sendTimeout;
    private final ThreadDeletion deletion;
    private final RedisConnections redis;
    private final JsonCodec codec;

    ThreadDeletions(KafkaTemplate<String, byte[]> producer, String eventsTopic, Duration sendTimeout, ThreadDeletion deletion,
            RedisConnections redis, JsonCodec codec) {
        this.producer = producer;
        this.eventsTopic = eventsTopic;
        this.sendTimeout = sendTimeout;
        this.deletion = deletion;
        this.redis = redis;
        this.codec = codec;
    }

    /** @throws ApiProblem {@code upstream_unavailable} when Kafka did not take the record: then nothing was deleted */
    void delete(ThreadDeleted deleted) {
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(eventsTopic, deleted.threadId(),
                codec.write(deleted).getBytes(StandardCharsets.UTF_8));
        record.headers().add(ThreadDeleted.KIND_HEADER, ThreadDeleted.KIND.getBytes(StandardCharsets.UTF_8));
        try {
            producer.send(record).get(sendTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException | KafkaException e) {
            throw new ApiProblem(ErrorCode.UPSTREAM_UNAVAILABLE, "the deletion could not be recorded; nothing was deleted, try again");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiProblem(ErrorCode.UPSTREAM_UNAVAILABLE, "interrupted; try again");
        }
        RunLibrary.LIBRARY.retryingIfNotLoaded(redis, () -> {
            redis.await(deletion.apply(redis.async(), deleted), redis.commandTimeout(), "the thread's deletion");
            return deleted;
        });
    }

    @Override
    public void destroy() {
        producer.destroy();
    }
}
