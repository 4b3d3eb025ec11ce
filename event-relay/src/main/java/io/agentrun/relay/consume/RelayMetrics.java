package io.agentrun.relay.consume;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Relay meters: {@code agentrun.relay.event.age} (an event's {@code created_at} → Redis applied it: the
 * relay's share of delivery latency, and its lag in time), {@code agentrun.relay.lag} (records not yet
 * applied in this relay's partitions), {@code agentrun.relay.batches.failed} (batches Redis refused).
 */
public final class RelayMetrics {

    /** For loops built without a registry (tests). */
    static final RelayMetrics NONE = new RelayMetrics(null);

    private final @Nullable Timer eventAge;

    public RelayMetrics(@Nullable MeterRegistry registry) {
        this.eventAge = registry == null ? null : Timer.builder("agentrun.relay.event.age")
                .description("From an event's created_at to the relay having applied it in Redis")
                .publishPercentileHistogram().register(registry);
    }

    /** The loop's gauges; bound once it exists. */
    public static void bind(MeterRegistry registry, EventRelayLoop loop) {
        Gauge.builder("agentrun.relay.lag", loop, EventRelayLoop::lag)
                .description("Records in this relay's partitions not yet applied, as of its last poll").register(registry);
        FunctionCounter.builder("agentrun.relay.batches.failed", loop, EventRelayLoop::failedBatches)
                .description("Batches Redis did not take (each is read again)").register(registry);
    }

    void applied(long[] createdAtMillis, int count) {
        if (eventAge == null) {
            return;
        }
        long now = System.currentTimeMillis();
        for (int i = 0; i < count; i++) {
            eventAge.record(Math.max(0, now - createdAtMillis[i]), TimeUnit.MILLISECONDS);
        }
    }
}
