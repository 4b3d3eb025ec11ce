package io.agentrun.ops.cli;

import io.agentrun.platform.kafka.ClientDefaults;
import io.agentrun.platform.kafka.ClusterAdmin;
import io.agentrun.platform.kafka.KafkaSettings;
import io.agentrun.platform.kafka.RetiredKafkaSettings;
import io.agentrun.platform.kafka.TopicReaders;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.StateSettings;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.kafka.core.KafkaAdmin;

/**
 * The services' own settings, bound the way the services bind them, so the command line reads the same
 * topic and Redis as they do: {@code agentrun.*} and {@code spring.kafka.*} properties from the environment
 * ({@code AGENTRUN_KAFKA_EVENTS_TOPIC}, {@code SPRING_KAFKA_PROPERTIES_SECURITY_PROTOCOL}, …) or {@code -D}, plus the short
 * variables the services accept
 * ({@code KAFKA_BOOTSTRAP_SERVERS}, {@code REDIS_URL}, {@code SPRING_DATA_REDIS_CLUSTER_NODES}), and the command's own
 * options over everything.
 *
 * @param redisUrl     one {@code redis://} URI, or several comma-separated ones for a Redis Cluster
 *                     ({@link RedisConnections#connect(String)})
 * @param redisCluster a Redis Cluster even when {@code redisUrl} names one node (the services' seed nodes were given)
 */
record OpsSettings(KafkaSettings kafka, KafkaProperties kafkaClients, String redisUrl, boolean redisCluster, StateSettings state) {

    static final String DEFAULT_REDIS_URL = "redis://localhost:6379";

    static OpsSettings from(ConnectionOptions connection, @Nullable String relayGroup) {
        StandardEnvironment environment = new StandardEnvironment();
        Map<String, Object> shortNames = new HashMap<>();
        putIfSet(shortNames, "spring.kafka.bootstrap-servers", System.getenv("KAFKA_BOOTSTRAP_SERVERS"));
        environment.getPropertySources().addLast(new MapPropertySource("short-names", shortNames));
        Map<String, Object> options = new HashMap<>();
        putIfSet(options, "spring.kafka.bootstrap-servers", connection.bootstrapServers);
        putIfSet(options, "agentrun.kafka.events-topic", connection.eventsTopic);
        putIfSet(options, "agentrun.kafka.relay-group", relayGroup);
        environment.getPropertySources().addFirst(new MapPropertySource("options", options));
        RetiredKafkaSettings.check(environment);
        Binder binder = new Binder(ConfigurationPropertySources.from(environment.getPropertySources()));
        String option = connection.redisUrl;
        String clusterNodes = System.getenv("SPRING_DATA_REDIS_CLUSTER_NODES");
        return new OpsSettings(binder.bindOrCreate("agentrun.kafka", KafkaSettings.class), binder.bindOrCreate("spring.kafka", KafkaProperties.class),
                redisUrl(option, clusterNodes, System.getenv("REDIS_URL")), !isSet(option) && isSet(clusterNodes),
                binder.bindOrCreate("agentrun.state", StateSettings.class));
    }

    /** Readers of the event topic, with the consumer settings the services have. */
    TopicReaders readers() {
        return new TopicReaders(ClientDefaults.consumerFactory(kafkaClients), kafka);
    }

    /** An admin client of the cluster these settings name; the caller closes it. */
    ClusterAdmin openAdmin() {
        return new ClusterAdmin(new KafkaAdmin(kafkaClients.buildAdminProperties()), "agentrun-ops-" + ProcessHandle.current().pid());
    }

    /** A client of the Redis these settings name; the caller closes it. */
    RedisConnections openRedis() {
        return redisCluster ? RedisConnections.connectCluster(redisUrl) : RedisConnections.connect(redisUrl);
    }

    /**
     * The command's {@code --redis-url}, else a cluster's seed nodes as the services are given them
     * ({@code host:port,…}), else {@code REDIS_URL}, else a local Redis.
     */
    static String redisUrl(@Nullable String option, @Nullable String clusterNodes, @Nullable String url) {
        if (isSet(option)) {
            return option;
        }
        if (isSet(clusterNodes)) {
            // As the services do: credentials and TLS come from REDIS_URL, the nodes from the list.
            String schemeAndCredentials = isSet(url) ? schemeAndCredentials(url) : "redis://";
            return Arrays.stream(clusterNodes.split(",")).map(String::strip).filter(node -> !node.isEmpty())
                    .map(node -> schemeAndCredentials + node).collect(Collectors.joining(","));
        }
        return isSet(url) ? url : DEFAULT_REDIS_URL;
    }

    /** {@code rediss://user:pass@} of {@code rediss://user:pass@host:port/0}; {@code redis://} when it has none. */
    private static String schemeAndCredentials(String url) {
        int hostStart = url.indexOf("://") + 3;
        int at = url.lastIndexOf('@');
        return hostStart < 3 ? "redis://" : url.substring(0, at >= hostStart ? at + 1 : hostStart);
    }

    private static boolean isSet(@Nullable String value) {
        return value != null && !value.isBlank();
    }

    private static void putIfSet(Map<String, Object> target, String name, @Nullable String value) {
        if (isSet(value)) {
            target.put(name, value);
        }
    }
}
