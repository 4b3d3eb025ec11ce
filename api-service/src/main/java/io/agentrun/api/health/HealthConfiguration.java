package io.agentrun.api.health;

import io.agentrun.platform.kafka.ClusterAdmin;
import io.agentrun.platform.kafka.KafkaSettings;
import io.agentrun.platform.redis.RedisConnections;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class HealthConfiguration {

    @Bean
    PipelineHealthIndicator pipelineHealthIndicator(RedisConnections redis, ClusterAdmin cluster, KafkaSettings kafka) {
        return new PipelineHealthIndicator(redis, cluster, kafka);
    }
}
