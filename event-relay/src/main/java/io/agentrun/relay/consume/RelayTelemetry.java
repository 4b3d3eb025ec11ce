package io.agentrun.relay.consume;

import io.agentrun.model.event.EventType;
import io.agentrun.platform.observe.Tracing;
import io.agentrun.state.apply.RelayedEvent;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

/**
 * What a relay records. Spans: {@code agentrun.relay.apply} for a run's {@code run_start} and {@code run_end}
 * (not every event: spans per delta would cost more than they tell), in the trace their record's
 * {@code traceparent} header names, from read to Redis applied. Meters: {@code agentrun.relay.event.age} (an event's record timestamp, the worker's send time → Redis applied it: the
 * relay's share of delivery latency, and its lag in time), {@code agentrun.relay.lag} (records not yet
 * applied in this relay's partitions), {@code agentrun.relay.batches.failed} (batches Redis refused).
 */
final class RelayTelemetry {

    private final Timer eventAge;
    private final Tracer tracer;

    RelayTelemetry(MeterRegistry registry, Tracer tracer) {
        this.tracer = tracer;
        this.eventAge = Timer.builder("agentrun.relay.event.age")
                .description("From an event's created_at to the relay having applied it in Redis")
                .publishPercentileHistogram().register(registry);
    }

    /** The relay's gauges; bound once it exists. */
    static void bind(MeterRegistry registry, EventRelay relay) {
        Gauge.builder("agentrun.relay.lag", relay, EventRelay::lag)
                .description("Records in this relay's partitions not yet applied, as of its last batch").register(registry);
        FunctionCounter.builder("agentrun.relay.batches.failed", relay, EventRelay::failedBatches)
                .description("Batches Redis did not take (each is applied again)").register(registry);
        FunctionCounter.builder("agentrun.relay.replays", relay, EventRelay::replays)
                .description("Times the relay re-applied its partitions after Redis's topology changed (a failover may lose writes)")
                .register(registry);
    }

    /** A span for the records worth one (run_start, run_end), ended by {@link #ended}; null for the rest. */
    @Nullable Span applying(ConsumerRecord<String, byte[]> record, RelayedEvent event) {
        if (event.type() != EventType.RUN_START && event.type() != EventType.RUN_END) {
            return null;
        }
        return tracer.spanBuilder("agentrun.relay.apply").setParent(Tracing.extract(record.headers())).setSpanKind(SpanKind.CONSUMER)
                .setAttribute(Tracing.RUN_ID, event.runId()).setAttribute("agentrun.event", event.type().wireName())
                .setAttribute("agentrun.seq", event.seq()).startSpan();
    }

    /** The span's W3C traceparent, for the live message; "" when it is not recording (not sampled). */
    static String traceparent(Span span) {
        byte[] value = Tracing.traceparent(Context.root().with(span));
        return value == null ? "" : new String(value, java.nio.charset.StandardCharsets.UTF_8);
    }

    static void ended(List<Span> spans, boolean applied) {
        for (Span span : spans) {
            if (!applied) {
                span.setStatus(StatusCode.ERROR, "Redis did not take the batch");
            }
            span.end();
        }
    }

    /** @param sentAtMillis the records' timestamps: the worker's send time, within a millisecond of created_at */
    void applied(long[] sentAtMillis, int count) {
        long now = System.currentTimeMillis();
        for (int i = 0; i < count; i++) {
            eventAge.record(Math.max(0, now - sentAtMillis[i]), TimeUnit.MILLISECONDS);
        }
    }
}
