package io.agentrun.worker.dispatch;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.ClusterAdmin;
import io.agentrun.platform.kafka.KafkaSettings;
import io.agentrun.platform.store.RunOwnership;
import io.agentrun.platform.store.RunStore;
import io.agentrun.worker.WorkerSettings;
import io.agentrun.worker.run.RunSlots;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.DefaultShareConsumerFactory;
import org.springframework.kafka.core.ShareConsumerFactory;

@Configuration(proxyBeanMethods = false)
class DispatchConfiguration {

    /**
     * Settings of a group consumer that a share consumer refuses (Kafka 4.2's {@code ShareConsumerConfig}): Spring Boot's
     * consumer properties always carry {@code isolation.level}, and {@code spring.kafka.consumer.*} may set the others for
     * the relays' consumer group.
     */
    static final List<String> REFUSED_BY_SHARE_CONSUMERS = List.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, ConsumerConfig.ISOLATION_LEVEL_CONFIG,
            ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG,
            ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, ConsumerConfig.GROUP_PROTOCOL_CONFIG,
            ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG);

    /**
     * Share consumers with Spring Boot's consumer settings ({@code spring.kafka.consumer.*}, the connection, our
     * deserializers). Spring Boot makes no share consumer factory of its own.
     */
    @Bean
    ShareConsumerFactory<String, byte[]> commandConsumers(ConsumerFactory<String, byte[]> consumerFactory) {
        Map<String, Object> config = new HashMap<>(consumerFactory.getConfigurationProperties());
        REFUSED_BY_SHARE_CONSUMERS.forEach(config::remove);
        return new DefaultShareConsumerFactory<>(config);
    }

    @Bean
    ShareGroupDispatcher shareGroupDispatcher(ShareConsumerFactory<String, byte[]> commandConsumers, ClusterAdmin cluster,
            KafkaSettings kafka, JsonCodec codec, RunOwnership ownership, RunStore runs, RunSlots slots, WorkerSettings settings) {
        ShareGroupSettings.apply(cluster, kafka.workerGroup());
        return new ShareGroupDispatcher(commandConsumers, kafka, codec, ownership, runs, slots, settings);
    }
}
