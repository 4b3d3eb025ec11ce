package io.agentrun.relay;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.KafkaClients;
import io.agentrun.platform.kafka.TopicProvisioner;
import io.agentrun.platform.observe.Tracing;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.StateSettings;
import io.agentrun.relay.apply.EventApplier;
import io.agentrun.relay.consume.EventRelayLoop;
import io.agentrun.relay.consume.RelaySettings;
import io.agentrun.relay.consume.RelayTelemetry;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(RelaySettings.class)
class RelayConfiguration {

    /** The applier's own connection: its pipeline order is the order events are applied in. */
    @Bean(destroyMethod = "close")
    StatefulRedisConnection<String, String> applierConnection(RedisConnections redis) {
        return redis.newConnection();
    }

    @Bean
    EventApplier eventApplier(StatefulRedisConnection<String, String> applierConnection, JsonCodec codec, StateSettings settings,
            MeterRegistry registry) {
        EventApplier applier = new EventApplier(applierConnection, codec, settings);
        io.micrometer.core.instrument.FunctionCounter.builder("agentrun.relay.events.fenced", applier, EventApplier::fencedCount)
                .description("Events of an epoch their run had left (a worker that lost its lease): not applied").register(registry);
        io.micrometer.core.instrument.FunctionCounter.builder("agentrun.relay.events.after.gap", applier, EventApplier::afterGapCount)
                .description("Events after a hole in their attempt (an earlier event's send failed): not applied; the run goes on "
                        + "as another attempt").register(registry);
        return applier;
    }

    @Bean
    EventRelayLoop eventRelayLoop(KafkaClients clients, JsonCodec codec, EventApplier applier, RelaySettings settings,
            TopicProvisioner topicsReady, MeterRegistry registry, Tracing tracing) {
        EventRelayLoop loop = new EventRelayLoop(clients, codec, applier, settings, new RelayTelemetry(registry, tracing.tracer()));
        RelayTelemetry.bind(registry, loop);
        return loop;
    }
}
