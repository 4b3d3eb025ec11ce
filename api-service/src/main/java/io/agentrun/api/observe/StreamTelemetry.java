package io.agentrun.api.observe;

import io.agentrun.model.json.CreatedAt;
import io.agentrun.platform.observe.Tracing;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * What an api node records about its SSE streams. The span {@code agentrun.sse.deliver} covers one stream
 * from its headers to its last write, as a child of the request's span (so, for a new run, in the run's
 * trace). Meters: {@code agentrun.sse.connections} (open now),
 * {@code agentrun.stream.first_event{agent}} (request reached the stream → first event written: what a
 * user waits before anything appears; agents past the first {@value #MAX_AGENT_SERIES} share {@code agent=_other}) and {@code agentrun.event.delivery} (an event's {@code created_at} on
 * the worker → written to the client's socket: the whole pipeline's latency, across hosts' clocks).
 */
public final class StreamTelemetry {

    /** Agent ids are chosen by users: past this many, further agents share one series rather than grow the registry. */
    static final int MAX_AGENT_SERIES = 200;
    static final String OTHER_AGENTS = "_other";

    private final MeterRegistry registry;
    private final AtomicInteger open = new AtomicInteger();
    private final Timer delivery;
    private final Map<String, Timer> firstEventByAgent = new ConcurrentHashMap<>();
    private final Tracer tracer;

    public StreamTelemetry(MeterRegistry registry, Tracer tracer) {
        this.registry = registry;
        this.tracer = tracer;
        Gauge.builder("agentrun.sse.connections", open, AtomicInteger::get)
                .description("SSE connections open on this api node").register(registry);
        this.delivery = Timer.builder("agentrun.event.delivery")
                .description("From an event's created_at to its SSE write on this node")
                .publishPercentileHistogram().register(registry);
    }

    /** A stream's headers are out; end the returned span when it closes ({@link #closed}). */
    public Span opened(String runId) {
        open.incrementAndGet();
        return tracer.spanBuilder("agentrun.sse.deliver").setAttribute(Tracing.RUN_ID, runId).startSpan();
    }

    public void closed(Span delivery) {
        open.decrementAndGet();
        delivery.end();
    }

    /**
     * The write of an event the relay traced ({@code agentrun.sse.write}, a child of its
     * {@code agentrun.relay.apply} span); an inert span for the rest. End it when written.
     */
    public Span writing(@Nullable String traceparent) {
        if (traceparent == null) {
            return Span.getInvalid();
        }
        return tracer.spanBuilder("agentrun.sse.write").setParent(Tracing.fromTraceparent(traceparent)).startSpan();
    }

    public void firstEvent(String agentId, long streamStartNanos) {
        firstEventTimer(agentId).record(System.nanoTime() - streamStartNanos, TimeUnit.NANOSECONDS);
    }

    /** One timer per agent, built once (not per stream), for at most {@link #MAX_AGENT_SERIES} agents. */
    private Timer firstEventTimer(String agentId) {
        Timer timer = firstEventByAgent.get(agentId);
        if (timer != null) {
            return timer;
        }
        String series = firstEventByAgent.size() < MAX_AGENT_SERIES ? agentId : OTHER_AGENTS;
        return firstEventByAgent.computeIfAbsent(series, agent -> Timer.builder("agentrun.stream.first_event")
                .description("From the stream request to its first event written")
                .tag("agent", agent).publishPercentileHistogram().register(registry));
    }

    /** Times an event from its {@code created_at} (read from the text: no JSON parse per event on the hot path). */
    public void delivered(String envelopeJson) {
        long created = CreatedAt.millis(envelopeJson);
        if (created >= 0) { // else not an envelope this node can time; the event itself was delivered
            delivery.record(Math.max(0, System.currentTimeMillis() - created), TimeUnit.MILLISECONDS);
        }
    }
}
