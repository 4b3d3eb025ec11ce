package io.agentrun.worker.run;

import io.agentrun.worker.WorkerSettings;
import io.agentrun.model.command.RunCommand;
import io.agentrun.platform.observe.LogContext;
import io.agentrun.platform.observe.Tracing;
import io.agentrun.platform.store.RunOwnership;
import io.agentrun.worker.cancel.CancelToken;
import io.agentrun.worker.cancel.CancellationWatcher;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runs this worker executes now, each on its own virtual thread, at most {@code max-in-flight} at once.
 * What the intake asks before it takes more work, what the lease keeper renews, and what a shutdown stops.
 */
public final class RunSlots {

    private static final Logger log = LoggerFactory.getLogger(RunSlots.class);

    private final RunExecutor executor;
    private final CancellationWatcher cancellations;
    private final ExecutorService threads;
    private final WorkerSettings settings;
    private final Tracer tracer;
    private final Map<String, Running> running = new ConcurrentHashMap<>();
    /** Free slots: {@code max-in-flight} less the runs executing; below zero while a sweeper's give-ups run beyond it. */
    private final FreeSlots free;
    /** Executions that ended because another worker had taken their run over (found at a renewal, a park or the end). */
    private final LongAdder leasesLost = new LongAdder();

    public RunSlots(RunExecutor executor, CancellationWatcher cancellations, ExecutorService threads, WorkerSettings settings,
            Tracer tracer) {
        this.executor = executor;
        this.cancellations = cancellations;
        this.threads = threads;
        this.settings = settings;
        this.tracer = tracer;
        this.free = new FreeSlots(settings.maxInFlight());
    }

    private record Running(RunOwnership.Lease lease, CancelToken token) {
    }

    /**
     * Runs {@code command}, claimed as {@code claim}, in the trace its command's headers carry, in one of the slots
     * {@code room} reserved.
     */
    public void start(RunCommand command, RunOwnership.Claim.Won claim, Context parent, Reservation room) {
        room.use();
        launch(command, claim, token -> {
            Span span = tracer.spanBuilder("agentrun.run").setParent(parent).setSpanKind(SpanKind.CONSUMER)
                    .setAttribute(Tracing.RUN_ID, command.runId()).setAttribute(Tracing.AGENT_ID, command.agentId())
                    .setAttribute("agentrun.attempt", (long) claim.epoch()).startSpan();
            try (Scope scope = span.makeCurrent()) {
                cancellations.track(command.runId(), token);
                return executor.execute(command, claim, token);
            } finally {
                cancellations.forget(command.runId());
                span.end();
            }
        });
    }

    /** Ends {@code command} failed without running it (the sweeper's decision), holding its lease meanwhile. */
    public void startGiveUp(RunCommand command, RunOwnership.Claim.Won claim, String code) {
        free.take();
        launch(command, claim, token -> executor.giveUp(command, claim, code));
    }

    /** Starts {@code work} on its own thread in a slot already taken; the slot is given back when the work ends. */
    private void launch(RunCommand command, RunOwnership.Claim.Won claim, java.util.function.Function<CancelToken, RunOutcome> work) {
        CancelToken token = new CancelToken();
        running.put(command.runId(), new Running(new RunOwnership.Lease(command.runId(), claim.epoch()), token));
        try {
            threads.execute(() -> runAndForget(command, () -> work.apply(token)));
        } catch (RuntimeException e) {
            running.remove(command.runId());
            free.release();
            throw e;
        }
    }

    private void runAndForget(RunCommand command, Supplier<RunOutcome> work) {
        try (var context = LogContext.of(command.runId(), command.threadId(), command.projectId())) {
            if (work.get() == RunOutcome.LEASE_LOST) {
                leasesLost.increment();
            }
        } catch (RuntimeException e) {
            log.error("run {} crashed in the worker; it is taken over when its lease lapses", command.runId(), e);
        } finally {
            running.remove(command.runId());
            free.release();
        }
    }

    /**
     * Runs stopped here because another worker had taken them over (this one stalled past its lease): whether the lease
     * keeper found the lease lost, or the run's end or park did — a worker that cannot reach Redis while it finishes its
     * answer learns only then.
     */
    public long leasesLost() {
        return leasesLost.sum();
    }

    /** Whether {@code runId} executes here now. */
    public boolean executes(String runId) {
        return running.containsKey(runId);
    }

    public int executing() {
        return running.size();
    }

    /** Runs this worker may still start. */
    public int room() {
        return Math.max(0, free.availablePermits());
    }

    /**
     * Reserves {@code wanted} slots, waiting at most {@code max} for them: taken before the dispatcher polls, so every
     * command the poll brings has a slot to start in (a check that took nothing would let a sweeper's give-up, or a
     * second poller, take the room in between). Each run started with it uses one; the rest go back at {@link
     * Reservation#close()}.
     *
     * @return the reservation, or empty when the room was not there in time
     */
    public Optional<Reservation> reserve(int wanted, Duration max) throws InterruptedException {
        if (!free.tryAcquire(wanted, max.toNanos(), TimeUnit.NANOSECONDS)) {
            return Optional.empty();
        }
        return Optional.of(new Reservation(wanted));
    }

    /** Waits until none of {@code max-in-flight} slots is taken, at most {@code max}; takes none. */
    public boolean awaitIdle(Duration max) throws InterruptedException {
        if (!free.tryAcquire(settings.maxInFlight(), max.toNanos(), TimeUnit.NANOSECONDS)) {
            return false;
        }
        free.release(settings.maxInFlight());
        return true;
    }

    /** Slots reserved for the runs of one poll ({@link #reserve}); not thread-safe: the dispatcher's loop alone uses it. */
    public final class Reservation implements AutoCloseable {
        private int left;

        private Reservation(int slots) {
            this.left = slots;
        }

        /** Slots still unused. */
        public int left() {
            return left;
        }

        private void use() {
            if (left == 0) {
                throw new IllegalStateException("a poll brought more runs than the slots reserved for it");
            }
            left--;
        }

        /** Gives back the slots no run used. */
        @Override
        public void close() {
            free.release(left);
            left = 0;
        }
    }

    /** The leases of the runs executing here, for renewal. */
    public List<RunOwnership.Lease> leases() {
        List<RunOwnership.Lease> leases = new ArrayList<>(running.size());
        running.values().forEach(run -> leases.add(run.lease()));
        return leases;
    }

    /** Another worker owns this run now: stop it here at once, without run_end. */
    public void leaseLost(RunOwnership.Lease lease) {
        Running run = running.get(lease.runId());
        if (run != null && run.lease().equals(lease)) {
            run.token().cancel(CancelToken.Reason.LEASE_LOST);
        }
    }

    /** Stops every run without run_end (they are handed back) and waits up to {@code max} until none executes. */
    public boolean stopAll(Duration max) throws InterruptedException {
        running.values().forEach(run -> run.token().cancel(CancelToken.Reason.SHUTDOWN));
        return awaitIdle(max);
    }

    /**
     * A {@link Semaphore} of free slots: the dispatcher reserves room before it takes work ({@link #reserve}), and a
     * sweeper's give-up takes a slot without waiting, even when the worker is full (it only writes the run's end), so
     * the count may go below zero for a moment.
     */
    private static final class FreeSlots extends Semaphore {
        FreeSlots(int slots) {
            super(slots);
        }

        void take() {
            reducePermits(1);
        }
    }
}
