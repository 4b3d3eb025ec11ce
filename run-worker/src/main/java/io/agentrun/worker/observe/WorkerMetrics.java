package io.agentrun.worker.observe;

import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import io.agentrun.worker.dispatch.ShareGroupDispatcher;
import io.agentrun.worker.lease.RunSweeper;
import io.agentrun.worker.run.RunSlots;
import io.agentrun.worker.emit.EventPublisher;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Run meters, fed by the events this worker publishes (so they count exactly what clients see):
 * {@code agentrun.runs.started{agent}} (first attempts), {@code agentrun.runs.ended{agent,status}},
 * {@code agentrun.run.duration{agent,status}}; plus the dispatcher's {@code agentrun.worker.runs.in_flight}
 * {@code agentrun.worker.commands{outcome}}, {@code agentrun.worker.leases.lost} and the sweeper's counters.
 */
final class WorkerMetrics implements EventPublisher.Listener {

    private final MeterRegistry registry;
    /*
     * Meters looked up once per agent (and status), not built and registered per run: a builder's register() hashes
     * its id and tags into the registry's map each time, 4% of a worker's CPU under load (bench profile, 50 streams).
     */
    private final Map<String, Counter> started = new ConcurrentHashMap<>();
    private final Map<Ending, Ended> ended = new ConcurrentHashMap<>();

    private record Ending(String agent, String status) {
    }

    private record Ended(Counter count, Timer duration) {
    }

    WorkerMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public void published(RunEvent event) {
        switch (event.data()) {
            case EventData.RunStart start when start.attempt() == 1 -> started.computeIfAbsent(event.agentId(), agent -> Counter
                    .builder("agentrun.runs.started").description("Runs a worker started (first attempts)").tag("agent", agent)
                    .register(registry)).increment();
            case EventData.RunEnd end -> {
                Ended meters = ended.computeIfAbsent(new Ending(event.agentId(), end.status().wireName()), this::ended);
                meters.count().increment();
                meters.duration().record(Duration.ofMillis(end.durationMs()));
            }
            default -> { }
        }
    }

    private Ended ended(Ending ending) {
        return new Ended(Counter.builder("agentrun.runs.ended").description("Runs ended, by status (completed, failed, cancelled, timed_out)")
                .tags("agent", ending.agent(), "status", ending.status()).register(registry),
                Timer.builder("agentrun.run.duration").description("Run time from run_start to run_end")
                        .tags("agent", ending.agent(), "status", ending.status()).publishPercentileHistogram().register(registry));
    }

    /** Runs executing here now. */
    public void bind(RunSlots slots) {
        Gauge.builder("agentrun.worker.runs.in_flight", slots, RunSlots::executing)
                .description("Runs executing on this worker now").register(registry);
        FunctionCounter.builder("agentrun.worker.leases.lost", slots, RunSlots::leasesLost)
                .description("Runs stopped here because another worker took them over").register(registry);
    }

    /** What became of the commands this worker took: started, duplicate (not run), released, rejected. */
    public void bind(ShareGroupDispatcher dispatcher) {
        for (ShareGroupDispatcher.ClaimOutcome outcome : ShareGroupDispatcher.ClaimOutcome.values()) {
            FunctionCounter.builder("agentrun.worker.commands", dispatcher, d -> d.claimCount(outcome))
                    .tag("outcome", outcome.name().toLowerCase(java.util.Locale.ROOT))
                    .description("Commands this worker took, by what became of them").register(registry);
        }
    }

    /** The sweeper's takeovers and give-ups. */
    public void bind(RunSweeper sweeper) {
        FunctionCounter.builder("agentrun.worker.sweeper.requeued", sweeper, RunSweeper::requeuedCount)
                .description("Commands produced again: lapsed leases, handed-back runs, commands never claimed").register(registry);
        FunctionCounter.builder("agentrun.worker.sweeper.given_up", sweeper, RunSweeper::givenUpCount)
                .description("Runs ended failed because they could never start").register(registry);
        FunctionCounter.builder("agentrun.worker.sweeper.paused", sweeper, RunSweeper::pauseCount)
                .description("Redis faults (a failed sweep, a cluster topology change) that paused the sweeper or extended its pause").register(registry);
    }
}
