package io.agentrun.platform.redis;

import java.util.List;
import java.util.Locale;
import org.springframework.core.env.Environment;

/**
 * Refuses, before any bean is made, Redis settings the services no longer read or Spring Boot cannot: the
 * {@code agentrun.redis.*} properties of earlier releases (a deployment that set {@code AGENTRUN_REDIS_CLUSTER} would
 * otherwise speak single-node to a cluster), and a {@code REDIS_URL} that lists several nodes or is not
 * {@code redis://}/{@code rediss://}. Boot's own error for a malformed URL quotes it, password included; this one
 * names the fix and never the URL.
 */
final class RedisUrlCheck {

    private static final List<String> RETIRED = List.of("agentrun.redis.url", "agentrun.redis.cluster", "agentrun.redis.command-timeout",
            "agentrun.redis.topology-refresh");

    private RedisUrlCheck() {
    }

    static void check(Environment environment) {
        for (String retired : RETIRED) {
            if (environment.containsProperty(retired)) {
                throw new IllegalStateException(retired + " is no longer read: Redis is configured with Spring Boot's spring.data.redis.*"
                        + " (REDIS_URL is spring.data.redis.url; a Redis Cluster's nodes go in SPRING_DATA_REDIS_CLUSTER_NODES,"
                        + " the command timeout in spring.data.redis.timeout, the topology refresh in"
                        + " spring.data.redis.lettuce.cluster.refresh.period)");
            }
        }
        String url = environment.getProperty("spring.data.redis.url");
        if (url == null || url.isBlank()) {
            return;
        }
        if (url.contains(",")) {
            throw new IllegalStateException("REDIS_URL (spring.data.redis.url) names several nodes: set a Redis Cluster's nodes as"
                    + " SPRING_DATA_REDIS_CLUSTER_NODES=host:port,host:port,... and keep one URI in REDIS_URL for credentials and TLS");
        }
        String scheme = url.contains("://") ? url.substring(0, url.indexOf("://")).toLowerCase(Locale.ROOT) : "";
        if (!scheme.equals("redis") && !scheme.equals("rediss")) {
            throw new IllegalStateException("REDIS_URL (spring.data.redis.url) must start with redis:// or rediss://"
                    + (scheme.isEmpty() ? "" : ", not " + scheme + "://")
                    + "; sentinels are set with SPRING_DATA_REDIS_SENTINEL_MASTER and SPRING_DATA_REDIS_SENTINEL_NODES");
        }
    }
}
