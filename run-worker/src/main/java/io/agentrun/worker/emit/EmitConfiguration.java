package io.agentrun.worker.emit;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.KafkaTemplates;
import io.agentrun.worker.WorkerSettings;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class EmitConfiguration {

    @Bean
    EventPublisher eventPublisher(KafkaTemplates templates, JsonCodec codec, WorkerSettings settings, EventPublisher.Listener listener) {
        return new EventPublisher(templates, codec, settings.id() + "-events", settings.deliveryTimeout(), settings.eventLinger(), listener);
    }
}
