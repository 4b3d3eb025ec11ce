package io.agentrun.api.admin;

import io.agentrun.platform.redis.RedisConnections;
import java.time.Clock;
import java.util.List;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.method.support.HandlerMethodArgumentResolver;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/** The operators' API ({@code /admin/v1}): projects, keys, agents, webhooks. */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(AdminSettings.class)
class AdminConfiguration implements WebMvcConfigurer {

    private final AdminSettings settings;

    AdminConfiguration(AdminSettings settings) {
        this.settings = settings;
    }

    @Override
    public void addArgumentResolvers(List<HandlerMethodArgumentResolver> resolvers) {
        resolvers.add(new OperatorResolver(settings));
    }

    @Bean
    Projects projects(RedisConnections redis, Clock clock) {
        return new Projects(redis, clock);
    }
}
