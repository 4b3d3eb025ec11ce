package io.agentrun.infra.redis;

import java.net.URI;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Where a Redis is, as the tools and tests name it (one {@code redis://} URI, or several comma-separated for a Redis
 * Cluster: what {@code REDIS_URL} holds for {@code ./agentrun local} and the ops commands), turned into what the
 * services read: Spring Boot's {@code spring.data.redis.url} for one node, {@code spring.data.redis.cluster.nodes} for
 * a cluster.
 */
public final class RedisEndpoints {

    private RedisEndpoints() {
    }

    /** The services' properties for {@code url}. */
    public static Map<String, String> properties(String url) {
        List<String> nodes = nodes(url);
        if (nodes.size() == 1) {
            return Map.of("spring.data.redis.url", nodes.getFirst());
        }
        return Map.of("spring.data.redis.cluster.nodes", nodes.stream().map(RedisEndpoints::hostAndPort).collect(Collectors.joining(",")));
    }

    /**
     * The same as environment variables, for services started as processes. For a cluster {@code REDIS_URL} is its
     * first node (the services read one URI there, for credentials and TLS), overriding a list the caller inherited.
     */
    public static Map<String, String> environment(String url) {
        List<String> nodes = nodes(url);
        if (nodes.size() == 1) {
            return Map.of("REDIS_URL", nodes.getFirst());
        }
        return Map.of("REDIS_URL", nodes.getFirst(),
                "SPRING_DATA_REDIS_CLUSTER_NODES", properties(url).get("spring.data.redis.cluster.nodes"));
    }

    private static List<String> nodes(String url) {
        List<String> nodes = Arrays.stream(url.split(",")).map(String::strip).filter(uri -> !uri.isEmpty()).toList();
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("no Redis URI in '" + url + "'");
        }
        return nodes;
    }

    private static String hostAndPort(String uri) {
        URI parsed = URI.create(uri);
        return parsed.getHost() + ":" + (parsed.getPort() < 0 ? 6379 : parsed.getPort());
    }
}
