package io.agentrun.api.thread;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.KafkaClients;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.StateSettings;
import io.agentrun.platform.store.ThreadDeletion;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class ThreadConfiguration {

    @Bean
    ThreadDeletions threadDeletions(KafkaClients clients, RedisConnections redis, JsonCodec codec, StateSettings state) {
        return new ThreadDeletions(clients.template("agentrun-api-thread-deletions"), clients.settings().eventsTopic(),
                clients.settings().requestTimeout(), new ThreadDeletion(codec, state), redis, codec);
    }
}
