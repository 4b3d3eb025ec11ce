package io.agentrun.worker.dispatch;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.KafkaClients;
import io.agentrun.platform.kafka.TopicProvisioner;
import io.agentrun.platform.store.RunOwnership;
import io.agentrun.platform.store.RunStore;
import io.agentrun.worker.WorkerSettings;
import io.agentrun.worker.run.RunSlots;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class DispatchConfiguration {

    /** @param topicsReady the topics exist before the share group is joined */
    @Bean
    ShareGroupDispatcher shareGroupDispatcher(KafkaClients clients, JsonCodec codec, RunOwnership ownership, RunStore runs,
            RunSlots slots, WorkerSettings settings, TopicProvisioner topicsReady) {
        ShareGroupSettings.apply(clients);
        return new ShareGroupDispatcher(clients, codec, ownership, runs, slots, settings);
    }
}
