package io.agentrun.platform.observe;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.jspecify.annotations.Nullable;

/**
 * How a trace crosses api → run-commands → worker → thread-events → relay → pub/sub → api: W3C {@code traceparent}
 * in Kafka record headers and in live messages, and the attribute keys of this service's spans. Spans are per run,
 * per model call and per tool call, never per delta. The tracer itself, its sampler, resource and export are Spring
 * Boot's ({@code management.tracing.*}, {@code management.opentelemetry.*}); see {@code PlatformConfiguration}.
 *
 * <p>A run's command carries its context by spring-kafka's observation of the api's {@code KafkaTemplate}. Events do
 * not: an observed send would be a span per delta, so the worker sets the run's {@code traceparent} itself, and the
 * relay and the api read it here.
 */
public final class Tracing {

    public static final String TRACEPARENT = "traceparent";
    public static final AttributeKey<String> RUN_ID = AttributeKey.stringKey("agentrun.run_id");
    public static final AttributeKey<String> THREAD_ID = AttributeKey.stringKey("agentrun.thread_id");
    public static final AttributeKey<String> AGENT_ID = AttributeKey.stringKey("agentrun.agent_id");
    /** The instrumentation scope of every span this code makes. */
    public static final String SCOPE = "io.agentrun";

    private static final W3CTraceContextPropagator W3C = W3CTraceContextPropagator.getInstance();

    private Tracing() {
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
