package io.agentrun.platform.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration;
import org.springframework.boot.micrometer.tracing.opentelemetry.autoconfigure.OpenTelemetryTracingAutoConfiguration;
import org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.http.server.observation.ServerRequestObservationContext;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

/** Our spans on Spring Boot's OpenTelemetry SDK, as the services configure it (no broker, no collector). */
class TracingConfigurationTest {

    private final ApplicationContextRunner context = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(OpenTelemetrySdkAutoConfiguration.class,
                    OpenTelemetryTracingAutoConfiguration.class, MicrometerTracingAutoConfiguration.class,
                    ObservationAutoConfiguration.class))
            .withUserConfiguration(TracingConfiguration.class)
            .withBean("testSpanExporter", SpanExporter.class, InMemorySpanExporter::create)
            .withPropertyValues("spring.application.name=api-service", "management.tracing.sampling.probability=1.0");

    @Test
    void ourSpansReachEveryExporterBeanNamedByTheServiceAndOurScope() {
        context.run(app -> {
            Tracer tracer = app.getBean(Tracer.class);
            tracer.spanBuilder("agentrun.run").setAttribute(Tracing.RUN_ID, "run_1").startSpan().end();
            app.getBean(SdkTracerProvider.class).forceFlush().join(10, TimeUnit.SECONDS);

            InMemorySpanExporter exporter = (InMemorySpanExporter) app.getBean(SpanExporter.class);
            assertThat(exporter.getFinishedSpanItems()).singleElement().satisfies(span -> {
                assertThat(span.getName()).isEqualTo("agentrun.run");
                assertThat(span.getInstrumentationScopeInfo().getName()).isEqualTo(Tracing.SCOPE);
                assertThat(span.getResource().getAttribute(AttributeKey.stringKey("service.name"))).isEqualTo("api-service");
                assertThat(span.getAttributes().get(Tracing.RUN_ID)).isEqualTo("run_1");
                assertThat(span.getSpanContext().isSampled()).as("sampled at probability 1.0").isTrue();
            });
        });
    }

    @Test
    void healthProbesAndScrapesAreNotObservedButApiRequestsAre() {
        context.run(app -> {
            ObservationRegistry registry = app.getBean(ObservationRegistry.class);
            assertThat(request(registry, "/actuator/health/readiness").isNoop()).isTrue();
            assertThat(request(registry, "/actuator/prometheus").isNoop()).isTrue();
            assertThat(request(registry, "/api/v1/agents/assistant/stream/threads").isNoop()).isFalse();
        });
    }

    @Test
    void aSampledParentKeepsItsChildrenSampledWhateverTheProbability() {
        context.withPropertyValues("management.tracing.sampling.probability=0.0").run(app -> {
            Tracer tracer = app.getBean(Tracer.class);
            var parent = Tracing.fromTraceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
            tracer.spanBuilder("agentrun.run").setParent(parent).startSpan().end();
            tracer.spanBuilder("agentrun.stream").startSpan().end();
            app.getBean(SdkTracerProvider.class).forceFlush().join(10, TimeUnit.SECONDS);

            InMemorySpanExporter exporter = (InMemorySpanExporter) app.getBean(SpanExporter.class);
            assertThat(exporter.getFinishedSpanItems()).as("only the child of a sampled traceparent").extracting(SpanData::getTraceId)
                    .containsExactly("0af7651916cd43dd8448eb211c80319c");
        });
    }

    private static Observation request(ObservationRegistry registry, String path) {
        var context = new ServerRequestObservationContext(new MockHttpServletRequest("GET", path), new MockHttpServletResponse());
        return Observation.createNotStarted("http.server.requests", () -> context, registry);
    }
}
