package io.agentrun.platform.kafka;

import io.agentrun.model.naming.Topics;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrun.kafka.*}: where the broker is, what the topics are called and how they are created.
 *
 * @param replicationFactor   replicas of created topics; -1 takes the broker's default
 * @param createTopics        create missing topics at start-up (turn off where topics are managed elsewhere)
 * @param lingerTime          how long a producer waits for more records before it sends; 0: records that arrive
 *                            while a request is in flight are batched anyway ({@link KafkaClients})
 * @param requestTimeout      bound on a produce acknowledgement the caller waits for (api: 503 past it)
 */
@ConfigurationProperties("agentrun.kafka")
public record KafkaSettings(
        @DefaultValue("localhost:9092") String bootstrapServers,
        @DefaultValue(Topics.RUN_COMMANDS) String commandsTopic,
        @DefaultValue(Topics.THREAD_EVENTS) String eventsTopic,
        @DefaultValue("12") int commandPartitions,
        @DefaultValue("12") int eventPartitions,
        @DefaultValue("-1") short replicationFactor,
        @DefaultValue("7d") Duration eventRetention,
        @DefaultValue("true") boolean createTopics,
        @DefaultValue(Topics.WORKER_SHARE_GROUP) String workerGroup,
        @DefaultValue(Topics.RELAY_GROUP) String relayGroup,
        @DefaultValue("0ms") Duration lingerTime,
        @DefaultValue("5s") Duration requestTimeout) {
}
