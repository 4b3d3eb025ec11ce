package io.agentrun.relay.consume;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.ClusterAdmin;
import io.agentrun.platform.kafka.KafkaSettings;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.state.apply.EventApplier;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.opentelemetry.api.trace.Tracer;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.ContainerProperties.AckMode;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;
import org.springframework.util.backoff.FixedBackOff;

/** The relay's consumer: the event topic, in the relay group, applied by {@link EventRelay} in a spring-kafka container. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(RelaySettings.class)
class ConsumeConfiguration {

    @Bean
    EventRelay eventRelay(ClusterAdmin cluster, JsonCodec codec, EventApplier applier, MeterRegistry registry, Tracer tracer,
            RedisConnections redis, RelaySettings settings, List<AfterApply> afterApply) {
        EventRelay relay = new EventRelay(cluster, codec, applier, new RelayTelemetry(registry, tracer), afterApply);
        // Kafka is the record: what a Redis failover dropped is applied again from the topic.
        redis.onTopologyChange(() -> relay.replayAfterTopologyChange(settings.failoverReplay()));
        return relay;
    }

    /**
     * A container over one consumer of Spring Boot's factory, in the relay group: it hands each poll's records to the relay
     * as one batch, on the consumer's own thread, and commits offsets only for batches the relay returned from. A batch the
     * relay threw on is handed to it again after the retry pause, for ever: every failure counts as retryable, so a batch
     * is never skipped, whatever the exception (every step of the relay is idempotent). The container starts and stops
     * with the application context; stopping, or giving up partitions in a rebalance, commits what was done.
     */
    @Bean
    KafkaMessageListenerContainer<String, byte[]> eventRelayContainer(ConsumerFactory<String, byte[]> consumers, KafkaSettings kafka,
            EventRelay relay, RelaySettings settings) {
        ContainerProperties properties = new ContainerProperties(kafka.eventsTopic());
        properties.setGroupId(kafka.relayGroup());
        properties.setClientId(settings.id());
        Properties consumer = new Properties();
        consumer.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        consumer.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumer.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        consumer.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, settings.maxPollRecords());
        properties.setKafkaConsumerProperties(consumer);
        properties.setMessageListener(relay);
        properties.setPollTimeout(settings.pollTimeout().toMillis());
        // Applied offsets are committed once per commit-interval, not per batch (a commit per batch was a broker request
        // per poll: docs/performance.md). A relay that dies re-applies at most that interval's events, which the scripts
        // recognise as applied before.
        properties.setAckMode(AckMode.TIME);
        properties.setAckTime(settings.commitInterval().toMillis());
        properties.setSyncCommits(false);
        KafkaMessageListenerContainer<String, byte[]> container = new KafkaMessageListenerContainer<>(consumers, properties);
        DefaultErrorHandler retrying = new DefaultErrorHandler(new FixedBackOff(settings.retryBackoff().toMillis(), FixedBackOff.UNLIMITED_ATTEMPTS));
        retrying.setClassifications(Map.of(), true);
        container.setCommonErrorHandler(retrying);
        return container;
    }

    @Bean
    MeterBinder relayConsumerMeters(EventRelay relay) {
        return registry -> RelayTelemetry.bind(registry, relay);
    }
}
