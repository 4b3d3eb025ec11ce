package io.agentrun.worker.lease;

import io.agentrun.platform.schedule.PeriodicTask;
import io.agentrun.model.command.RunCommand;
import io.agentrun.platform.kafka.CommandRequeuer;
import io.agentrun.model.command.RunInput;
import io.agentrun.model.command.RunMode;
import io.agentrun.model.json.CodecException;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.store.RunOwnership;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.WaitingRuns;
import io.agentrun.worker.run.RunSlots;
import io.agentrun.worker.WorkerSettings;
import io.lettuce.core.RedisException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.TaskScheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Looks at the runs the due index names, every {@code sweep-interval} (with jitter), in every worker; any
 * number may sweep at once, since each decision is one script on the run's hash. A run whose owner stopped
 * renewing is taken from it and its command produced again; a command nobody claimed within
 * {@code claim-timeout} is produced again (with back-off); a run that can never start (claimed
 * {@code max-attempts} times without ending, or not claimed within {@code start-timeout}) is ended failed by
 * the sweeper itself, in an epoch of its own, and so is a run whose creating api node died before confirming its
 * command ({@link NodeWatch}), within seconds. A run waiting for its thread is started when the thread was handed to
 * it (or is free) but nobody started it.
 */
public final class RunSweeper extends PeriodicTask {

    private static final Logger log = LoggerFactory.getLogger(RunSweeper.class);
    private static final int BATCH = 200;

    private final RunOwnership ownership;
    private final CommandRequeuer requeuer;
    private final WaitingRuns waiting;
    private final RunSlots slots;
    private final JsonCodec codec;
    private final WorkerSettings settings;
    private final RunOwnership.SweepPolicy policy;
    private final NodeWatch nodes;
    private final AtomicLong pausedUntil = new AtomicLong(System.nanoTime());
    private final LongAdder requeued = new LongAdder();
    private final LongAdder givenUp = new LongAdder();
    private final LongAdder pauses = new LongAdder();

    public RunSweeper(RunOwnership ownership, CommandRequeuer requeuer, WaitingRuns waiting, RunSlots slots, JsonCodec codec,
            WorkerSettings settings, RunOwnership.SweepPolicy policy, NodeWatch nodes, TaskScheduler timer) {
        super(timer, settings.sweepInterval());
        this.ownership = ownership;
        this.requeuer = requeuer;
        this.waiting = waiting;
        this.slots = slots;
        this.codec = codec;
        this.settings = settings;
        this.policy = policy;
        this.nodes = nodes;
    }

    /** Commands this worker's sweeper produced again (lapsed leases, handed-back and unclaimed runs). */
    public long requeuedCount() {
        return requeued.sum();
    }

    /**
     * Redis faults the sweeper paused for ({@link #pauseAfterRedisFault}): each one that began a pause or extended it
     * (a failover seen while the pause of an earlier fault still ran counts too, so every incident shows).
     */
    public long pauseCount() {
        return pauses.sum();
    }

    /** Runs this worker's sweeper ended failed because they could never start. */
    public long givenUpCount() {
        return givenUp.sum();
    }

    /**
     * Redis failed a sweep or its cluster topology changed: decide nothing for {@code sweep-pause-after-redis-fault}.
     * Every lease lapsed while renewals failed, though the owners live; and a failover that dropped acknowledged writes
     * leaves run hashes behind what the relays applied (a lower {@code last_seq}, a lost claim) until they re-apply the
     * topic. A takeover meanwhile would take a live owner's run, or fence from a stale seq (or reuse an epoch) so that
     * two executions' events mix in one stream.
     */
    public void pauseAfterRedisFault() {
        long until = System.nanoTime() + settings.sweepPauseAfterRedisFault().toNanos();
        boolean wasPaused = paused();
        pausedUntil.set(until);
        pauses.increment();
        if (!wasPaused) {
            log.warn("Redis failed or its topology changed: the sweeper takes no run over for {} (owners renew, relays re-apply first)",
                    settings.sweepPauseAfterRedisFault());
        }
    }

    /** Whether the sweeper is in its pause after a Redis fault ({@link #pauseAfterRedisFault}). */
    boolean paused() {
        return pausedUntil.get() - System.nanoTime() > 0;
    }

    @Override
    protected void runOnce() {
        if (paused()) {
            return;
        }
        try {
            List<String> due = ownership.due(BATCH);
            for (String runId : due) {
                sweep(runId);
            }
        } catch (RuntimeException e) {
            log.warn("sweep failed: {}", e.getMessage());
            if (e instanceof RedisException) {
                pauseAfterRedisFault();
            }
        }
    }

    private void sweep(String runId) {
        switch (ownership.sweep(runId, policy, settings.id(), nodes::dead)) {
            case RunOwnership.Sweep.Requeue requeue -> {
                RunCommand command = decode(requeue.commandJson());
                if (command != null) {
                    log.info("run {}: producing its command again (lease lapsed, handed back, or never claimed)", runId);
                    requeuer.send(command, requeue.commandJson());
                    requeued.increment();
                }
            }
            case RunOwnership.Sweep.GiveUp giveUp -> giveUp(runId, giveUp);
            case RunOwnership.Sweep.Waiting waits -> waiting.look(waits.threadId(), runId);
            case RunOwnership.Sweep.Wait wait -> { }
            case RunOwnership.Sweep.Settled settled -> { }
        }
    }

    private void giveUp(String runId, RunOwnership.Sweep.GiveUp giveUp) {
        givenUp.increment();
        slots.startGiveUp(giveUp.command(), new RunOwnership.Claim.Won(giveUp.epoch(), giveUp.firstSeq()), giveUp.code());
    }

    private @Nullable RunCommand decode(String json) {
        try {
            return codec.decodeCommand(json.getBytes(StandardCharsets.UTF_8));
        } catch (CodecException e) {
            log.error("a run's stored command is not a command ({})", e.getMessage());
            return null;
        }
    }

}
