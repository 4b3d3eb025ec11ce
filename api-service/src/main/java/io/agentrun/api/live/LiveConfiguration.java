package io.agentrun.api.live;

import io.agentrun.api.ApiSettings;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.RunEventLog;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.StateSettings;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.binder.MeterBinder;
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

    /** {@code agentrun.stream.events.from_backlog}: what live delivery missed (it should stay flat, failovers included). */
    @Bean
    MeterBinder liveEventMeters(LiveEvents live) {
        return registry -> FunctionCounter.builder("agentrun.stream.events.from_backlog", live, LiveEvents::eventsFromBacklog)
                .description("Events streams read from the backlog because this node's live channel had not brought them")
                .register(registry);
    }

    @Bean
    LiveEvents liveEvents(RedisConnections redis, JsonCodec codec, Backlog backlog, ApiSettings settings, StateSettings state) {
        return new LiveEvents(redis, codec, backlog, settings.gapCheckInterval(), settings.maxQueuedEvents(),
                redis.commandTimeout(), state.runRetention());
    }
}
