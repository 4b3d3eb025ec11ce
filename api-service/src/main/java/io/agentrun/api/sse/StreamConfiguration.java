package io.agentrun.api.sse;

import io.agentrun.api.ApiSettings;
import io.agentrun.api.live.LiveEvents;
import io.agentrun.api.observe.StreamTelemetry;
import io.agentrun.api.run.RunCanceller;
import io.agentrun.model.json.JsonCodec;
import io.opentelemetry.api.trace.Tracer;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class StreamConfiguration {

    @Bean
    NodeDrain nodeDrain(LiveEvents live) {
        return new NodeDrain(live);
    }

    @Bean
    SseForwarder sseForwarder(ApiSettings settings, NodeDrain drain, RunCanceller canceller, JsonCodec codec, MeterRegistry registry,
            Tracer tracer) {
        return new SseForwarder(settings, drain, canceller, codec, new StreamTelemetry(registry, tracer));
    }
}
