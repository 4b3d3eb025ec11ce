package io.agentrun.api.run;

import io.agentrun.model.command.RunCommand;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.observe.Tracing;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.agentrun.platform.kafka.KafkaTemplates;
import io.opentelemetry.context.Context;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.kafka.core.KafkaTemplate;

/**
 * Writes run commands to {@code agentrun.run-commands} and waits for the broker's acknowledgement. The
 * {@code agentrun.run.enqueue} observation (a span and a timer) is the send's; its {@code traceparent} goes in the
 * record's headers, where the worker continues the trace. The template's own observation (a second span and timer
 * per run) is off: it was 5 % of an api node's CPU under load (docs/performance.md, issue 29).
 */
final class CommandProducer implements DisposableBean {

    private final KafkaTemplate<String, byte[]> producer;
    private final String topic;
    private final JsonCodec codec;
    private final long timeoutMs;
    private final ObservationRegistry observations;

    CommandProducer(KafkaTemplates templates, JsonCodec codec, String clientId) {
        this(templates, codec, clientId, ObservationRegistry.NOOP);
    }

    /**
     * @param observations Spring Boot's: {@code agentrun.run.enqueue} (a span, under the request's, and a timer), whose
     *                     span the worker continues
     */
    CommandProducer(KafkaTemplates templates, JsonCodec codec, String clientId, ObservationRegistry observations) {
        this.observations = observations;
        this.producer = templates.template(clientId);
        producer.setMicrometerEnabled(false);
        this.topic = templates.settings().commandsTopic();
        this.codec = codec;
        this.timeoutMs = templates.settings().requestTimeout().toMillis() + 1000;
    }

    /** @throws CommandNotSentException when Kafka did not acknowledge the command in time */
    public void send(RunCommand command) {
        Observation enqueue = Observation.createNotStarted("agentrun.run.enqueue", observations)
                .highCardinalityKeyValue(Tracing.RUN_ID.getKey(), command.runId())
                .highCardinalityKeyValue(Tracing.AGENT_ID.getKey(), command.agentId())
                .start();
        try (Observation.Scope scope = enqueue.openScope()) {
            ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, command.partitionKey(), codec.encode(command));
            Tracing.inject(Context.current(), record.headers());
            producer.send(record).get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            enqueue.error(e.getCause());
            throw new CommandNotSentException(e.getCause());
        } catch (TimeoutException | RuntimeException e) {
            enqueue.error(e);
            throw new CommandNotSentException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            enqueue.error(e);
            throw new CommandNotSentException(e);
        } finally {
            enqueue.stop();
        }
    }

    @Override
    public void destroy() {
        producer.destroy();
    }

    /** The command is not known to be in Kafka; the caller rolls back and answers 503. */
    public static final class CommandNotSentException extends RuntimeException {
        CommandNotSentException(Throwable cause) {
            super("run command not acknowledged by Kafka: " + cause.getMessage(), cause);
        }
    }
}
