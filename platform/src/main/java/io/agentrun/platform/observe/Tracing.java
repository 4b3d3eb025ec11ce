package io.agentrun.platform.observe;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.jspecify.annotations.Nullable;

/**
 * This service's OpenTelemetry tracer, and W3C {@code traceparent} in Kafka record headers — how a trace
 * crosses api → run-commands → worker → thread-events → relay. Spans are per run, per model call and per
 * tool call, never per delta. One per service (the resource's {@code service.name}); not the global
 * instance, so services sharing a JVM (the end-to-end tests) keep their own.
 */
public final class Tracing implements AutoCloseable {

    public static final String TRACEPARENT = "traceparent";
    public static final AttributeKey<String> RUN_ID = AttributeKey.stringKey("agentrun.run_id");
    public static final AttributeKey<String> THREAD_ID = AttributeKey.stringKey("agentrun.thread_id");
    public static final AttributeKey<String> AGENT_ID = AttributeKey.stringKey("agentrun.agent_id");

    private static final W3CTraceContextPropagator W3C = W3CTraceContextPropagator.getInstance();
    private static final AttributeKey<String> SERVICE_NAME = AttributeKey.stringKey("service.name");

    private final SdkTracerProvider provider;
    private final Tracer tracer;

    /** @param exporter spans go here at once (tests); otherwise to {@code settings}' OTLP endpoint, batched, if any */
    public Tracing(String serviceName, TracingSettings settings, @Nullable SpanExporter exporter) {
        var builder = SdkTracerProvider.builder()
                .setResource(Resource.getDefault().merge(Resource.create(Attributes.of(SERVICE_NAME, serviceName))))
                .setSampler(Sampler.parentBased(Sampler.traceIdRatioBased(settings.sampleRatio())));
        SpanProcessor processor = exporter != null ? SimpleSpanProcessor.create(exporter)
                : settings.otlpEndpoint().isBlank() ? null
                : BatchSpanProcessor.builder(OtlpHttpSpanExporter.builder().setEndpoint(settings.otlpEndpoint()).build()).build();
        if (processor != null) {
            builder.addSpanProcessor(processor);
        }
        this.provider = builder.build();
        this.tracer = provider.get("io.agentrun");
    }

    public Tracer tracer() {
        return tracer;
    }

    /** Adds the context's {@code traceparent} to a record's headers (nothing when there is no valid span). */
    public static void inject(Context context, Headers headers) {
        W3C.inject(context, headers, (carrier, key, value) -> carrier.add(key, value.getBytes(StandardCharsets.UTF_8)));
    }

    /** The context a record's {@code traceparent} header names, or the root context. */
    public static Context extract(Headers headers) {
        return W3C.extract(Context.root(), headers, KAFKA_HEADERS);
    }

    /** The {@code traceparent} value of a context, for records sent later from other threads; null without a span. */
    public static byte @Nullable [] traceparent(Context context) {
        List<String> value = new ArrayList<>(1);
        W3C.inject(context, value, (carrier, key, v) -> {
            if (TRACEPARENT.equals(key)) {
                carrier.add(v);
            }
        });
        return value.isEmpty() ? null : value.getFirst().getBytes(StandardCharsets.UTF_8);
    }

    /** The context a {@code traceparent} value names (the root context when it is not one). */
    public static Context fromTraceparent(String traceparent) {
        return W3C.extract(Context.root(), traceparent, TRACEPARENT_VALUE);
    }

    /** The current span's trace id, or null when nothing is traced. */
    public static @Nullable String currentTraceId() {
        SpanContext span = Span.current().getSpanContext();
        return span.isValid() ? span.getTraceId() : null;
    }

    @Override
    public void close() {
        provider.close();
    }

    private static final TextMapGetter<String> TRACEPARENT_VALUE = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(String carrier) {
            return List.of(TRACEPARENT);
        }

        @Override
        public @Nullable String get(@Nullable String carrier, String key) {
            return TRACEPARENT.equals(key) ? carrier : null;
        }
    };

    private static final TextMapGetter<Headers> KAFKA_HEADERS = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Headers carrier) {
            List<String> keys = new ArrayList<>();
            carrier.forEach(h -> keys.add(h.key()));
            return keys;
        }

        @Override
        public @Nullable String get(@Nullable Headers carrier, String key) {
            Header header = carrier == null ? null : carrier.lastHeader(key);
            return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
        }
    };
}
