package io.agentrun.relay.consume;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.KafkaClients;
import io.agentrun.platform.kafka.TopicProvisioner;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.state.apply.EventApplier;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.opentelemetry.api.trace.Tracer;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.ContainerProperties.AckMode;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;
import org.springframework.util.backoff.FixedBackOff;

/** The relay's consumer: the event topic, in the relay group, applied by {@link EventRelay} in a spring-kafka container. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(RelaySettings.class)
class ConsumeConfiguration {

    @Bean
    EventRelay eventRelay(KafkaClients clients, JsonCodec codec, EventApplier applier, MeterRegistry registry, Tracer tracer,
            RedisConnections redis, RelaySettings settings, List<AfterApply> afterApply) {
        EventRelay relay = new EventRelay(clients, codec, applier, new RelayTelemetry(registry, tracer), afterApply);
        // Kafka is the record: what a Redis failover dropped is applied again from the topic.
        redis.onTopologyChange(() -> relay.replayAfterTopologyChange(settings.failoverReplay()));
        return relay;
    }

    @Bean
    KafkaMessageListenerContainer<String, byte[]> eventRelayContainer(KafkaClients clients, EventRelay relay, RelaySettings settings,
            TopicProvisioner topicsReady) {
        Map<String, Object> config = clients.consumer(settings.id(), clients.settings().relayGroup());
        config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, settings.maxPollRecords());
        ContainerProperties properties = new ContainerProperties(clients.settings().eventsTopic());
        properties.setMessageListener(relay);
        properties.setPollTimeout(settings.pollTimeout().toMillis());
        // Applied offsets are committed once per commit-interval, not per batch (a commit per batch was a broker request
        // per poll: docs/performance.md). A relay that dies re-applies at most that interval's events, which the scripts
        // recognise as applied before.
        properties.setAckMode(AckMode.TIME);
        properties.setAckTime(settings.commitInterval().toMillis());
        properties.setSyncCommits(false);
        return clients.batchContainer(config, properties, new FixedBackOff(settings.retryBackoff().toMillis(), FixedBackOff.UNLIMITED_ATTEMPTS));
    }

    @Bean
    MeterBinder relayConsumerMeters(EventRelay relay) {
        return registry -> RelayTelemetry.bind(registry, relay);
    }
}
