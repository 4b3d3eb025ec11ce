package io.agentrun.platform.pipeline;

import io.agentrun.platform.schedule.PeriodicTask;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import org.springframework.scheduling.TaskScheduler;

/**
 * A service node's snapshot of its own meters ({@link PipelineMeters}), written to Redis ({@link PipelineStore}) every
 * {@code agentrun.pipeline.snapshot-interval} on the services' periodic scheduler. A round Redis refused is logged and
 * the next one comes as planned: the page then shows a gap, and a node silent three intervals drops off it.
 */
public final class PipelineSnapshots extends PeriodicTask {

    private final PipelineNode node;
    private final PipelineStore store;
    private final PipelineMeters meters;
    private final Duration silentAfter;
    private final Clock clock;

    public PipelineSnapshots(PipelineNode node, PipelineStore store, MeterRegistry registry, PipelineSettings settings,
            TaskScheduler scheduler) {
        super(scheduler, settings.snapshotInterval());
        this.node = node;
        this.store = store;
        this.meters = new PipelineMeters(registry);
        this.silentAfter = settings.silentAfter();
        this.clock = Clock.systemUTC();
    }

    public PipelineNode node() {
        return node;
    }

    @Override
    protected void runOnce() {
        store.write(node, meters.sample(clock.millis()), silentAfter);
    }
}
