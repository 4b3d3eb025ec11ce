package io.agentrun.platform.redis;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrun.redis.*}: the Redis every service shares.
 *
 * @param url             {@code redis://host:port[/db]} (also {@code rediss://}, with credentials)
 * @param commandTimeout  bound on any single command
 */
@ConfigurationProperties("agentrun.redis")
public record RedisSettings(
        @DefaultValue("redis://localhost:6379") String url,
        @DefaultValue("5s") Duration commandTimeout) {
}
