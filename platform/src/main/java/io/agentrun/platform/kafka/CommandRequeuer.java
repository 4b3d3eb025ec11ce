package io.agentrun.platform.kafka;

import io.agentrun.model.command.RunCommand;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.kafka.core.KafkaTemplate;

/**
 * Produces a run's command again, keyed like the api node keyed it. Fire and forget: should the send fail,
 * the run is still due in the index and the next sweep tries again.
 */
public final class CommandRequeuer implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(CommandRequeuer.class);

    private final KafkaTemplate<String, byte[]> producer;
    private final String topic;

    public CommandRequeuer(KafkaTemplates templates, String clientId) {
        this.producer = templates.template(clientId);
        this.topic = templates.settings().commandsTopic();
    }

    public void send(RunCommand command, String commandJson) {
        try {
            producer.send(new ProducerRecord<>(topic, command.partitionKey(), commandJson.getBytes(StandardCharsets.UTF_8)))
                    .whenComplete((result, error) -> {
                        if (error != null) {
                            log.warn("run {}: command not produced again ({}); the next sweep retries", command.runId(),
                                    error.getMessage());
                        }
                    });
        } catch (RuntimeException e) {
            log.warn("run {}: command not produced again ({}); the next sweep retries", command.runId(), e.getMessage());
        }
    }

    @Override
    public void destroy() {
        producer.destroy();
    }
}
