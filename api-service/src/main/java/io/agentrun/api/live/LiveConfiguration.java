package io.agentrun.api.live;

import io.agentrun.api.ApiSettings;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.RunEventLog;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.StateSettings;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class LiveConfiguration {

    @Bean
    ResumeBuffer resumeBuffer(RedisConnections redis, JsonCodec codec) {
        return new ResumeBuffer(redis, codec);
    }

    @Bean
    Backlog backlog(ResumeBuffer buffer, RunStore runs, RunEventLog eventLog, JsonCodec codec) {
        return new Backlog(buffer, runs, eventLog, codec);
    }

    @Bean
    LiveEvents liveEvents(RedisConnections redis, JsonCodec codec, Backlog backlog, ApiSettings settings, StateSettings state) {
        return new LiveEvents(redis, codec, backlog, settings.gapCheckInterval(), settings.maxQueuedEvents(),
                redis.commandTimeout(), state.runRetention());
    }
}
