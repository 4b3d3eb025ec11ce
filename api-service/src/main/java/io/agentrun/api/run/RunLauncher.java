package io.agentrun.api.run;

import io.agentrun.api.auth.Caller;
import io.agentrun.api.auth.SpendCaps;
import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.Echo;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.api.live.LiveEvents;
import io.agentrun.api.upload.IssuedFiles;
import io.agentrun.api.live.RunSubscription;
import io.agentrun.model.command.RunCommand;
import io.agentrun.model.command.RunInput;
import io.agentrun.model.command.RunMode;
import io.agentrun.model.id.Ids;
import io.agentrun.platform.redis.RedisRetry;
import io.agentrun.platform.store.AgentCatalog;
import io.agentrun.platform.store.ContextStore;
import io.agentrun.platform.store.RunOwnership;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.ThreadInfo;
import io.agentrun.platform.store.ThreadStore;
import io.lettuce.core.RedisException;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts runs: checks the agent and the thread, takes the thread's lock, listens for the run's live events, records
 * the run (naming this node as the one the relay publishes them to) and only then writes the command to Kafka — so no
 * event can be missed.
 *
 * <p>A run is accepted (the caller gets its stream) or refused (503 before any stream byte), never both
 * refused and executed: when anything fails after the run was recorded, the node records the refusal in
 * Redis ({@link RunOwnership#refuse}), which no worker's claim gets past — unless a worker has claimed the
 * run already (the command did reach Kafka although its send reported a failure), and then the run is
 * accepted after all.
 */
final class RunLauncher {

    private static final Logger log = LoggerFactory.getLogger(RunLauncher.class);
    /** How long a refusal the request could not wait for is retried in the background. */
    private static final Duration BACKGROUND_REFUSAL = Duration.ofMinutes(10);

    private final AgentCatalog agents;
    private final ContextStore contexts;
    private final ThreadStore threads;
    private final RunStore runs;
    private final LiveEvents live;
    private final CommandProducer commands;
    private final SpendCaps spendCaps;
    private final IssuedFiles files;
    private final RunOwnership ownership;
    private final RunCanceller canceller;
    private final Duration refusalTimeout;
    private final NodeLease lease;

    RunLauncher(AgentCatalog agents, ContextStore contexts, ThreadStore threads, RunStore runs, LiveEvents live,
            CommandProducer commands, SpendCaps spendCaps, IssuedFiles files, RunOwnership ownership, RunCanceller canceller,
            Duration refusalTimeout, NodeLease lease) {
        this.lease = lease;
        this.ownership = ownership;
        this.canceller = canceller;
        this.refusalTimeout = refusalTimeout;
        this.spendCaps = spendCaps;
        this.files = files;
        this.agents = agents;
        this.contexts = contexts;
        this.threads = threads;
        this.runs = runs;
        this.live = live;
        this.commands = commands;
    }

    /**
     * @param threadId the thread to continue; {@code null} starts a new one (streaming) or none (one-off)
     */
    public LaunchedRun launch(Caller caller, String agentId, @Nullable String threadId, RunMode mode, IfBusy ifBusy, RunRequest request) {
        return launch(caller, agentId, threadId, mode, ifBusy, request, Ids.newRunId(), runId -> true);
    }

    /**
     * @param runId the id the run gets (an idempotency key reserved it)
     * @param mayProduce asked once the run is recorded, just before its command is produced: false when another
     *     request took the run's idempotency key over meanwhile; the run is then refused and never produced
     * @throws ReservationLost when {@code mayProduce} said no
     */
    LaunchedRun launch(Caller caller, String agentId, @Nullable String threadId, RunMode mode, IfBusy ifBusy, RunRequest request,
            String runId, Predicate<String> mayProduce) {
        if (agents.find(caller.projectId(), agentId).isEmpty()) {
            throw new ApiProblem(ErrorCode.AGENT_NOT_FOUND, "project has no agent '" + Echo.of(agentId) + "'");
        }
        requireKnownContexts(caller, request.input());
        files.requireIssued(caller.projectId(), request.input());
        spendCaps.chargeRun(caller);
        boolean accepted = false;
        try {
            LaunchedRun launched = start(caller, agentId, threadId, mode, ifBusy, request, runId, mayProduce);
            accepted = true;
            return launched;
        } finally {
            if (!accepted) {
                refundRun(caller, runId);
            }
        }
    }

    /** The run charged to the caller's spend cap: claims its thread, records it and produces its command. */
    private LaunchedRun start(Caller caller, String agentId, @Nullable String threadId, RunMode mode, IfBusy ifBusy,
            RunRequest request, String runId, Predicate<String> mayProduce) {
        ThreadClaim claim = mode == RunMode.ONE_OFF ? ThreadClaim.NONE : claimThread(caller, agentId, threadId, runId, ifBusy, request);
        RunCommand command = new RunCommand(runId, claim.threadId, caller.projectId(), agentId, mode, request.input(),
                request.metadata(), Instant.now());
        RunSubscription subscription = null;
        boolean sending = false;
        try {
            boolean listened = LaunchedRun.listened(mode);
            if (listened) {
                // Listening before the run exists: the relay publishes its events to this node from the first one on.
                subscription = live.subscribeNew(runId);
            }
            runs.createQueued(command, caller.keyFamily(), claim.mayWait, listened ? live.nodeId() : null, live.nodeId());
            claim.written.await(); // a new thread's writes, sent before the run's: one round trip for both
            if (!mayProduce.test(runId)) {
                refuse(runId);
                undo(command, claim, subscription);
                throw new ReservationLost();
            }
            if (claim.mayWait) {
                // Recorded first, then queued: whoever hands the thread on finds the run to start.
                ThreadStore.LockOrWait where = threads.lockOrWait(claim.threadId, runId, ifBusy == IfBusy.INTERRUPT);
                if (!where.holds()) {
                    if (ifBusy == IfBusy.INTERRUPT) {
                        canceller.cancel(where.holder());
                    }
                    return new LaunchedRun(command, subscription, new LaunchedRun.Waiting(where.holder(), where.place()));
                }
                runs.stopWaiting(runId);
            }
            sending = true;
            commands.send(command);
            if (lease.held()) {
                runs.markSent(runId); // not waited for: no sweeper ends the run while this node's lease lives
            } else if (!confirmedAfterLapse(runId)) {
                throw new NodeLeaseLapsed(); // a sweeper found this node dead and is ending the run: the client is not told
            }
            return new LaunchedRun(command, subscription);
        } catch (CommandProducer.CommandNotSentException | RedisException | LiveEvents.SubscribeException | NodeLeaseLapsed e) {
            log.error("run {} not started: {}", runId, e.getMessage());
            // Only a command that was sent (after the subscription) can have been claimed.
            if (!refuse(runId) && sending) {
                log.info("run {} was claimed by a worker although its send failed; it goes on", runId);
                return new LaunchedRun(command, subscription);
            }
            undo(command, claim, subscription);
            throw new ApiProblem(ErrorCode.UPSTREAM_UNAVAILABLE, "the run could not be queued; try again shortly")
                    .header("x-run-id", runId);
        }
    }

    /** Gives back the charge of a run that was not accepted, whatever refused it (a problem, Redis, a bug). */
    private void refundRun(Caller caller, String runId) {
        try {
            spendCaps.refundRun(caller);
        } catch (RuntimeException e) {
            log.warn("run {} was not started but its spend-cap charge could not be given back ({})", runId, e.getMessage());
        }
    }

    /**
     * Records that the run is refused, retrying while Redis is unreachable (it may be restarting) for up to
     * {@code refusal-timeout}.
     *
     * @return true when refused (or the refusal could not be recorded in time); false when a worker has claimed
     *         the run already, so it is accepted after all
     */
    /**
     * This node's lease may have lapsed while it sent the command (a long pause, Redis out of its reach), so a sweeper
     * may be ending the run as abandoned: the run's hash decides. When Redis cannot say, the run is accepted: its
     * command is in Kafka, and a refusal that cannot be recorded could let it execute after its client was refused;
     * only a node proven dead is abandoned, and this one is alive.
     */
    private boolean confirmedAfterLapse(String runId) {
        try {
            return runs.confirmSent(runId);
        } catch (RedisException e) {
            log.warn("run {}: this node's lease may have lapsed and Redis did not confirm the run ({}); accepting it",
                    runId, e.getMessage());
            return true;
        }
    }

    private boolean refuse(String runId) {
        try {
            return RedisRetry.untilAnswered(() -> ownership.refuse(runId), refusalTimeout, failure -> true);
        } catch (RedisException e) {
            log.error("run {}: its refusal could not be recorded within {} ({}); trying on in the background",
                    runId, refusalTimeout, e.getMessage());
            refuseInBackground(runId);
            return true;
        }
    }

    /**
     * Goes on recording a refusal the request could not wait for. Until it is recorded the run is safe anyway:
     * no api node confirmed its command, so no sweeper produces it again (it ends {@code not_started} at the
     * workers' start timeout should this node die first); only a command that reached Kafka although its send
     * failed could still be claimed meanwhile.
     */
    private void refuseInBackground(String runId) {
        Thread.ofVirtual().name("refuse-" + runId).start(() -> {
            try {
                boolean refused = RedisRetry.untilAnswered(() -> ownership.refuse(runId), BACKGROUND_REFUSAL, failure -> true);
                log.info("run {}: {}", runId, refused ? "its refusal is recorded" : "a worker had claimed it before its refusal");
            } catch (RedisException e) {
                log.error("run {}: its refusal could not be recorded ({}); it ends not_started at the workers' start timeout",
                        runId, e.getMessage());
            }
        });
    }

    private void requireKnownContexts(Caller caller, RunInput input) {
        for (String contextId : input.contexts()) {
            if (!contexts.exists(caller.projectId(), contextId)) {
                throw new ApiProblem(ErrorCode.INVALID_REQUEST, "unknown context '" + Echo.of(contextId) + "' in 'contexts'");
            }
        }
    }

    /**
     * A new thread, locked for the run; or the caller's thread, locked for it (reject), or to be locked or waited for
     * once the run is recorded (enqueue, interrupt).
     */
    private ThreadClaim claimThread(Caller caller, String agentId, @Nullable String threadId, String runId, IfBusy ifBusy,
            RunRequest request) {
        if (threadId == null) {
            String created = Ids.newThreadId();
            return new ThreadClaim(created, true, false,
                    threads.createLocked(created, caller.projectId(), agentId, caller.keyFamily(), request.metadata(), runId));
        }
        ThreadInfo thread = Ids.hasShape(Ids.THREAD, threadId) ? threads.find(threadId).orElse(null) : null;
        if (thread == null || !thread.projectId().equals(caller.projectId()) || !caller.maySee(thread.keyFamily())) {
            // Another project's thread (or, for a publishable key, another key's) is reported exactly like a missing one.
            throw new ApiProblem(ErrorCode.THREAD_NOT_FOUND, "no thread '" + Echo.of(threadId) + "' in this project");
        }
        if (!thread.agentId().equals(agentId)) {
            throw new ApiProblem(ErrorCode.INVALID_REQUEST,
                    "thread " + threadId + " belongs to agent '" + thread.agentId() + "', not '" + Echo.of(agentId) + "'");
        }
        if (ifBusy != IfBusy.REJECT) {
            return new ThreadClaim(threadId, false, true, ThreadStore.PendingWrite.NONE);
        }
        if (!threads.tryLock(threadId, runId)) {
            throw new ApiProblem(ErrorCode.THREAD_BUSY, "thread " + threadId
                    + " has an active run; wait for its run_end, or ask with if_busy=enqueue or if_busy=interrupt");
        }
        return new ThreadClaim(threadId, false, false, ThreadStore.PendingWrite.NONE);
    }

    /** Takes back the thread lock (or the new thread) and the subscription of a refused run. */
    private void undo(RunCommand command, ThreadClaim claim, @Nullable RunSubscription subscription) {
        try {
            if (subscription != null) {
                subscription.close();
            }
            if (claim.threadId != null) {
                if (claim.created) {
                    threads.delete(claim.threadId);
                } else {
                    threads.withdraw(claim.threadId, command.runId());
                    // A run waiting for the thread now is started by a sweeper (this node has no command producer for it).
                    threads.unlock(claim.threadId, command.runId());
                }
            }
        } catch (RuntimeException e) {
            log.warn("could not fully undo run {} ({}); its thread lock expires by itself", command.runId(), e.getMessage());
        }
    }

    /** A sweeper abandoned the run while this node's lease had lapsed ({@link NodeLease#held}). */
    private static final class NodeLeaseLapsed extends RuntimeException {
        NodeLeaseLapsed() {
            super("this api node's lease lapsed before it confirmed the run, and a sweeper is ending it", null, false, false);
        }
    }

    /**
     * @param mayWait the thread is taken, or waited for, once the run is recorded ({@code if_busy} enqueue or interrupt)
     * @param written a new thread's writes, sent and not yet waited for
     */
    private record ThreadClaim(@Nullable String threadId, boolean created, boolean mayWait, ThreadStore.PendingWrite written) {
        static final ThreadClaim NONE = new ThreadClaim(null, false, false, ThreadStore.PendingWrite.NONE);
    }

    /** The run's idempotency key was taken over by another request before the run was produced; that one's run stands. */
    static final class ReservationLost extends RuntimeException {
        ReservationLost() {
            super("the idempotency key was taken over", null, false, false);
        }
    }
}
