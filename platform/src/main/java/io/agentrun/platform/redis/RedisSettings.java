package io.agentrun.platform.redis;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrun.redis.*}: the Redis every service shares, a single node or a Redis Cluster.
 *
 * @param url             {@code redis://host:port[/db]} (also {@code rediss://}, with credentials); for a Redis
 *                        Cluster, several comma-separated node URIs (seeds: the rest of the cluster is discovered)
 * @param cluster         a Redis Cluster even when {@code url} names one node only
 * @param commandTimeout  bound on any single command
 * @param topologyRefresh in cluster mode, how often the client re-reads the cluster's slots and nodes besides the
 *                        refreshes that MOVED/ASK redirects and lost connections trigger at once
 */
@ConfigurationProperties("agentrun.redis")
public record RedisSettings(
        @DefaultValue("redis://localhost:6379") String url,
        @DefaultValue("false") boolean cluster,
        @DefaultValue("5s") Duration commandTimeout,
        @DefaultValue("10s") Duration topologyRefresh) {

    /** Defaults for everything but the URL(s): what tests and tools that only know where Redis is need. */
    public static RedisSettings of(String url) {
        return new RedisSettings(url, false, Duration.ofSeconds(5), Duration.ofSeconds(10));
    }

    /** The node URIs of {@link #url}, trimmed, empty entries dropped. */
    public List<String> nodes() {
        return Arrays.stream(url.split(",")).map(String::strip).filter(uri -> !uri.isEmpty()).toList();
    }

    /** Cluster mode: asked for, or implied by more than one node URI. */
    public boolean isCluster() {
        return cluster || nodes().size() > 1;
    }
}
