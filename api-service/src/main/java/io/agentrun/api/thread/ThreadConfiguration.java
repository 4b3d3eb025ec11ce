package io.agentrun.api.thread;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.KafkaTemplates;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.StateSettings;
import io.agentrun.platform.store.ThreadDeletion;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class ThreadConfiguration {

    @Bean
    ThreadDeletions threadDeletions(KafkaTemplates templates, RedisConnections redis, JsonCodec codec, StateSettings state) {
        return new ThreadDeletions(templates.template("agentrun-api-thread-deletions"), templates.settings().eventsTopic(),
                templates.settings().requestTimeout(), new ThreadDeletion(codec, state), redis, codec);
    }
}
