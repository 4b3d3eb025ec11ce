package io.agentrun.api.health;

import io.agentrun.platform.kafka.KafkaClients;
import io.agentrun.platform.redis.RedisConnections;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class HealthConfiguration {

    @Bean
    PipelineHealthIndicator pipelineHealthIndicator(RedisConnections redis, KafkaClients clients) {
        return new PipelineHealthIndicator(redis, clients);
    }
}
