package io.agentrun.api.run;

import io.agentrun.model.command.RunCommand;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.observe.Tracing;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.agentrun.platform.kafka.KafkaClients;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.springframework.beans.factory.DisposableBean;

/** Writes run commands to {@code agentrun.run-commands} and waits for the broker's acknowledgement. */
final class CommandProducer implements DisposableBean {

    private final KafkaProducer<String, byte[]> producer;
    private final String topic;
    private final JsonCodec codec;
    private final long timeoutMs;
    private final Tracer tracer;

    CommandProducer(KafkaClients clients, JsonCodec codec, String clientId) {
        this(clients, codec, clientId, TracerProvider.noop().get("none"));
    }

    /** @param tracer the command's span ({@code agentrun.run.enqueue}) starts the run's trace or joins the request's */
    CommandProducer(KafkaClients clients, JsonCodec codec, String clientId, Tracer tracer) {
        this.tracer = tracer;
        this.producer = clients.producer(clientId);
        this.topic = clients.settings().commandsTopic();
        this.codec = codec;
        this.timeoutMs = clients.settings().requestTimeout().toMillis() + 1000;
    }

    /** @throws CommandNotSentException when Kafka did not acknowledge the command in time */
    public void send(RunCommand command) {
        Span span = tracer.spanBuilder("agentrun.run.enqueue").setSpanKind(SpanKind.PRODUCER)
                .setAttribute(Tracing.RUN_ID, command.runId()).setAttribute(Tracing.AGENT_ID, command.agentId())
                .startSpan();
        try (Scope scope = span.makeCurrent()) {
            ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, command.partitionKey(), codec.encode(command));
            Tracing.inject(Context.current(), record.headers());
            producer.send(record).get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            span.setStatus(StatusCode.ERROR);
            throw new CommandNotSentException(e.getCause());
        } catch (TimeoutException | RuntimeException e) {
            span.setStatus(StatusCode.ERROR);
            throw new CommandNotSentException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandNotSentException(e);
        } finally {
            span.end();
        }
    }

    @Override
    public void destroy() {
        producer.close();
    }

    /** The command is not known to be in Kafka; the caller rolls back and answers 503. */
    public static final class CommandNotSentException extends RuntimeException {
        CommandNotSentException(Throwable cause) {
            super("run command not acknowledged by Kafka: " + cause.getMessage(), cause);
        }
    }
}
