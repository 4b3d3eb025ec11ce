package io.agentrun.platform.observe;

import io.micrometer.observation.ObservationPredicate;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.server.observation.ServerRequestObservationContext;

/**
 * Tracing on Spring Boot's OpenTelemetry SDK: Boot builds the tracer provider (sampler from
 * {@code management.tracing.sampling.probability}, resource from {@code spring.application.name}, batch export to
 * every {@code SpanExporter} bean and, with {@code management.opentelemetry.tracing.export.otlp.endpoint}, over OTLP).
 * This adds what is ours: the tracer our spans come from, and which requests are not worth a trace.
 */
@Configuration(proxyBeanMethods = false)
public class TracingConfiguration {

    /** Boot's own {@code Tracer} bean steps back for this one; Micrometer's bridge uses it too. */
    @Bean
    Tracer agentrunTracer(OpenTelemetry openTelemetry) {
        return openTelemetry.getTracer(Tracing.SCOPE);
    }

    /** Only where a service serves HTTP (every service, for health and metrics at least). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(ServerRequestObservationContext.class)
    static class ServerRequests {

        /**
         * Health probes and metric scrapes, several a second per node, would be most traces and say nothing; they
         * are neither traced nor counted in {@code http.server.requests}.
         */
        @Bean
        ObservationPredicate actuatorRequestsNotObserved() {
            return (name, context) -> !(context instanceof ServerRequestObservationContext request
                    && request.getCarrier().getRequestURI().startsWith("/actuator"));
        }
    }
}
