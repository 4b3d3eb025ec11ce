package io.agentrun.ops.cli;

import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/** Where the event topic and Redis are, over what the environment says ({@link OpsSettings}): options every command takes. */
final class ConnectionOptions {

    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT",
            description = "Kafka (default: KAFKA_BOOTSTRAP_SERVERS, else the services' default)")
    @Nullable String bootstrapServers;

    @Option(names = "--redis-url", paramLabel = "URL",
            description = "Redis (default: REDIS_URL or SPRING_DATA_REDIS_CLUSTER_NODES, else redis://localhost:6379)")
    @Nullable String redisUrl;

    @Option(names = "--events-topic", paramLabel = "NAME",
            description = "the event topic (default: AGENTRUN_KAFKA_EVENTS_TOPIC, else the services' default)")
    @Nullable String eventsTopic;
}
