package io.agentrun.platform.observe;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrun.tracing.*}.
 *
 * @param otlpEndpoint where spans go over OTLP/HTTP, e.g. {@code http://otel-collector:4318/v1/traces}; blank:
 *                     spans are made (trace ids still reach {@code run_start} and Kafka headers) but not exported
 * @param sampleRatio  share of new traces kept (a trace that arrives sampled stays sampled)
 */
@ConfigurationProperties("agentrun.tracing")
public record TracingSettings(
        @DefaultValue("") String otlpEndpoint,
        @DefaultValue("1.0") double sampleRatio) {

    public TracingSettings {
        if (sampleRatio < 0 || sampleRatio > 1) {
            throw new IllegalArgumentException("agentrun.tracing.sample-ratio must be between 0 and 1");
        }
    }
}
