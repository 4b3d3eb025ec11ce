package io.agentrun.api.observe;

import io.agentrun.platform.observe.Tracing;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import java.time.Instant;
import java.time.DateTimeException;
import java.time.LocalDate;
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

    private static final String CREATED_AT = "\"created_at\":\"";
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

    /** Reads {@code created_at} straight from the envelope text: no JSON parse per event on the hot path. */
    public void delivered(String envelopeJson) {
        int at = envelopeJson.indexOf(CREATED_AT);
        if (at < 0) {
            return;
        }
        int from = at + CREATED_AT.length();
        int to = envelopeJson.indexOf('"', from);
        try {
            long created = epochMillis(envelopeJson, from, to);
            delivery.record(Math.max(0, System.currentTimeMillis() - created), TimeUnit.MILLISECONDS);
        } catch (DateTimeException | StringIndexOutOfBoundsException | NumberFormatException e) {
            // not an envelope this node can time; the event itself was delivered
        }
    }

    /**
     * {@code created_at} as the worker writes it, {@code 2026-11-23T20:01:02.123Z} (or without the millis when
     * they are 0), read field by field: {@link Instant#parse} per event was a few percent of an api node's CPU.
     * Any other form goes to {@link Instant#parse}.
     */
    static long epochMillis(String text, int from, int to) {
        int length = to - from;
        boolean withMillis = length == 24 && text.charAt(from + 19) == '.';
        if ((!withMillis && length != 20) || text.charAt(to - 1) != 'Z' || text.charAt(from + 10) != 'T') {
            return Instant.parse(text.substring(from, to)).toEpochMilli();
        }
        long day = LocalDate.of(digits(text, from, 4), digits(text, from + 5, 2), digits(text, from + 8, 2)).toEpochDay();
        long seconds = day * 86_400 + digits(text, from + 11, 2) * 3_600L + digits(text, from + 14, 2) * 60L + digits(text, from + 17, 2);
        return seconds * 1_000 + (withMillis ? digits(text, from + 20, 3) : 0);
    }

    private static int digits(String text, int from, int count) {
        int value = 0;
        for (int i = from; i < from + count; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                throw new NumberFormatException("not a digit in a timestamp: " + c);
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }
}
