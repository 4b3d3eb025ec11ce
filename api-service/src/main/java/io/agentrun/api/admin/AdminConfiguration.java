package io.agentrun.api.admin;

import io.agentrun.platform.redis.RedisConnections;
import java.time.Clock;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The operators' API ({@code /admin/v1}): projects, keys, agents, webhooks. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(AdminSettings.class)
class AdminConfiguration {

    @Bean
    Projects projects(RedisConnections redis, Clock clock) {
        return new Projects(redis, clock);
    }
}
