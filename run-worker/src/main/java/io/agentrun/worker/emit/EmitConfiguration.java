package io.agentrun.worker.emit;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.KafkaClients;
import io.agentrun.platform.kafka.TopicProvisioner;
import io.agentrun.worker.WorkerSettings;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class EmitConfiguration {

    /** @param topicsReady the topics exist before the first send */
    @Bean
    EventPublisher eventPublisher(KafkaClients clients, JsonCodec codec, WorkerSettings settings, TopicProvisioner topicsReady,
            EventPublisher.Listener listener) {
        return new EventPublisher(clients, codec, settings.id() + "-events", settings.deliveryTimeout(), listener);
    }
}
