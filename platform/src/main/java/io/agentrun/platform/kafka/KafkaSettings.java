package io.agentrun.platform.kafka;

import io.agentrun.model.naming.Topics;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrun.kafka.*}: what Spring Boot's {@code spring.kafka.*} has no property for. The clients themselves (brokers,
 * security, producer and consumer tuning) are Boot's; {@link RetiredKafkaSettings} names what moved there.
 *
 * <p>Topics are declared as {@code NewTopic} beans ({@link KafkaConfiguration}): their names, partition counts, replicas
 * and the event topic's retention are ours. The group ids are ours because one service's properties name both (the
 * local stack and the tests give every service the same set), the share group is not a consumer group, and the ops
 * commands read the relay group to see whether relays consume; {@code spring.kafka.consumer.group-id} is not read.
 *
 * @param replicationFactor replicas of created topics; -1 takes the broker's default
 * @param requestTimeout    bound on a produce acknowledgement the caller waits for (api: 503 past it): each template's
 *                          {@code max.block.ms} and {@code request.timeout.ms}, and with the linger its
 *                          {@code delivery.timeout.ms} ({@link KafkaTemplates}), whatever {@code spring.kafka.producer.*} says
 */
@ConfigurationProperties("agentrun.kafka")
public record KafkaSettings(
        @DefaultValue(Topics.RUN_COMMANDS) String commandsTopic,
        @DefaultValue(Topics.THREAD_EVENTS) String eventsTopic,
        @DefaultValue("12") int commandPartitions,
        @DefaultValue("12") int eventPartitions,
        @DefaultValue("-1") short replicationFactor,
        @DefaultValue("7d") Duration eventRetention,
        @DefaultValue(Topics.WORKER_SHARE_GROUP) String workerGroup,
        @DefaultValue(Topics.RELAY_GROUP) String relayGroup,
        @DefaultValue("5s") Duration requestTimeout) {
}
