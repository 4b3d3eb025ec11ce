package io.agentrun.worker.observe;

import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import io.agentrun.worker.dispatch.ShareGroupDispatcher;
import io.agentrun.worker.emit.EventPublisher;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;

/**
 * Run meters, fed by the events this worker publishes (so they count exactly what clients see):
 * {@code agentrun.runs.started{agent}} (first attempts), {@code agentrun.runs.ended{agent,status}},
 * {@code agentrun.run.duration{agent,status}}; plus the dispatcher's {@code agentrun.worker.runs.in_flight}
 * and {@code agentrun.worker.redeliveries}.
 */
public final class WorkerMetrics implements EventPublisher.Listener {

    private final MeterRegistry registry;

    public WorkerMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void published(RunEvent event) {
        switch (event.data()) {
            case EventData.RunStart start when start.attempt() == 1 -> Counter.builder("agentrun.runs.started")
                    .description("Runs a worker started (first attempts)").tag("agent", event.agentId())
                    .register(registry).increment();
            case EventData.RunEnd end -> {
                String status = end.status().wireName();
                Counter.builder("agentrun.runs.ended").description("Runs ended, by status (completed, failed, cancelled, timed_out)")
                        .tags("agent", event.agentId(), "status", status).register(registry).increment();
                Timer.builder("agentrun.run.duration").description("Run time from run_start to run_end")
                        .tags("agent", event.agentId(), "status", status).publishPercentileHistogram()
                        .register(registry).record(Duration.ofMillis(end.durationMs()));
            }
            default -> { }
        }
    }

    /** The dispatcher's gauges; bound once it exists. */
    public void bind(ShareGroupDispatcher dispatcher) {
        Gauge.builder("agentrun.worker.runs.in_flight", dispatcher, ShareGroupDispatcher::executingCount)
                .description("Runs executing on this worker now").register(registry);
        FunctionCounter.builder("agentrun.worker.redeliveries", dispatcher, ShareGroupDispatcher::redeliveredCount)
                .description("Commands received on a second or later share-group delivery").register(registry);
    }
}
