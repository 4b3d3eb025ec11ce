package io.agentrun.relay.consume;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.ClusterAdmin;
import io.agentrun.platform.kafka.KafkaSettings;
import io.agentrun.platform.pipeline.PipelineNode;
import io.agentrun.platform.pipeline.PipelineSettings;
import io.agentrun.platform.pipeline.PipelineSnapshots;
import io.agentrun.platform.pipeline.PipelineStore;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.retry.BackOffPolicy;
import io.agentrun.platform.schedule.SchedulingConfiguration;
import io.agentrun.state.apply.EventApplier;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.opentelemetry.api.trace.Tracer;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.listener.ContainerProperties.AckMode;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;
import org.springframework.scheduling.TaskScheduler;

/** The relay's consumer: the event topic, in the relay group, applied by {@link EventRelay} in a spring-kafka container. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(RelaySettings.class)
class ConsumeConfiguration {

    /** A fetch's size that answers at once: about 500 events (the batch a poll takes) of a streamed reply. */
    private static final int FETCH_MIN_BYTES = 256 * 1024;

    @Bean
    EventRelay eventRelay(ClusterAdmin cluster, JsonCodec codec, EventApplier applier, MeterRegistry registry, Tracer tracer,
            RedisConnections redis, RelaySettings settings, List<AfterApply> afterApply) {
        EventRelay relay = new EventRelay(cluster, codec, applier, new RelayTelemetry(registry, tracer), afterApply);
        // Kafka is the record: what a Redis failover dropped is applied again from the topic.
        redis.onTopologyChange(() -> relay.replayAfterTopologyChange(settings.failoverReplay()));
        return relay;
    }

    /** This relay's meters for the console's pipeline page (events applied, lag, batches Redis refused). */
    @Bean
    PipelineSnapshots pipelineSnapshots(RelaySettings relay, PipelineStore store, MeterRegistry registry, PipelineSettings settings,
            @Qualifier(SchedulingConfiguration.PERIODIC) TaskScheduler scheduler) {
        return new PipelineSnapshots(PipelineNode.started("relay", relay.id()), store, registry, settings, scheduler);
    }

    /**
     * A container over one consumer of Spring Boot's factory, in the relay group: it hands each poll's records to the relay
     * as one batch, on the consumer's own thread, and commits offsets only for batches the relay returned from. A batch the
     * relay threw on is handed to it again after the services' back-off (50 ms doubling, at most {@code retry-backoff}), for ever: every failure counts as retryable, so a batch
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
        // The classic protocol: Kafka 4.2's KIP-848 consumer, after a fetch the broker answered empty at fetch.max.wait.ms,
        // sends no next fetch until its poll times out (500 ms per event; docs/architecture.md, "Batching"). A 10 s
        // session and cooperative assignment keep the failover time of the KIP-848 group (the broker's 10 s session).
        consumer.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        consumer.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
        consumer.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 3_000);
        consumer.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
        consumer.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumer.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        consumer.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, settings.maxPollRecords());
        // The broker answers a fetch when FETCH_MIN_BYTES arrived or fetchWait passed: paced streams never fill it, so
        // each fetch waits fetchWait and brings every event of it; a burst fills it and is answered at once.
        if (settings.fetchWait().isPositive()) {
            consumer.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, (int) settings.fetchWait().toMillis());
            consumer.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, FETCH_MIN_BYTES);
        }
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
        DefaultErrorHandler retrying = new DefaultErrorHandler(BackOffPolicy.STANDARD.atMost(settings.retryBackoff()).backOff());
        retrying.setClassifications(Map.of(), true);
        container.setCommonErrorHandler(retrying);
        return container;
    }

    @Bean
    MeterBinder relayConsumerMeters(EventRelay relay) {
        return registry -> RelayTelemetry.bind(registry, relay);
    }
}
