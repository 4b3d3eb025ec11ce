package io.agentrun.api.run;

import io.agentrun.api.caller.Caller;
import io.agentrun.api.caller.SpendCaps;
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
import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.platform.store.ContextStore;
import io.agentrun.platform.store.IdempotencyKeys;
import io.agentrun.platform.store.RunOwnership;
import io.agentrun.platform.store.RunStarts;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.ThreadStore;
import io.lettuce.core.RedisException;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts runs: listens for the run's live events, then starts it in Redis ({@link RunStarts}: the idempotency key, the
 * agent and thread checks, the spend cap, the thread's lock or place in line, the run's record naming this node as the
 * one the relay publishes its events to; one call on a single primary) and only then writes the command to Kafka — so
 * no event can be missed. The command's {@code sent} mark follows later, and only for a run no event showed claimed
 * ({@link NodeLease#confirmLater}).
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

    private final RunStarts starts;
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

    RunLauncher(RunStarts starts, ContextStore contexts, ThreadStore threads, RunStore runs, LiveEvents live,
            CommandProducer commands, SpendCaps spendCaps, IssuedFiles files, RunOwnership ownership, RunCanceller canceller,
            Duration refusalTimeout, NodeLease lease) {
        this.lease = lease;
        this.ownership = ownership;
        this.canceller = canceller;
        this.refusalTimeout = refusalTimeout;
        this.spendCaps = spendCaps;
        this.files = files;
        this.starts = starts;
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
        return launch(caller, agentId, threadId, mode, ifBusy, request, Ids.newRunId(), null, runId -> true);
    }

    /**
     * @param runId the id the run gets (an idempotency key reserved it, or reserves it now)
     * @param reservation the idempotency key the start reserves for the run, null for none (or reserved already)
     * @param mayProduce asked once the run is recorded, just before its command is produced: false when another
     *     request took the run's idempotency key over meanwhile; the run is then refused and never produced
     * @throws ReservationLost when {@code mayProduce} said no
     * @throws KeyHeld when the idempotency key names a run already (nothing was started)
     */
    LaunchedRun launch(Caller caller, String agentId, @Nullable String threadId, RunMode mode, IfBusy ifBusy, RunRequest request,
            String runId, RunStarts.@Nullable Reservation reservation, Predicate<String> mayProduce) {
        if (!AgentDefinition.isValidId(agentId)) {
            throw noAgent(agentId);
        }
        if (threadId != null && !Ids.hasShape(Ids.THREAD, threadId)) {
            throw noThread(threadId);
        }
        requireKnownContexts(caller, request.input());
        files.requireIssued(caller.projectId(), request.input());
        RunStarts.ThreadPlan plan = mode == RunMode.ONE_OFF ? RunStarts.ThreadPlan.NONE
                : threadId == null ? RunStarts.ThreadPlan.NEW : switch (ifBusy) {
                    case REJECT -> RunStarts.ThreadPlan.REJECT;
                    case ENQUEUE -> RunStarts.ThreadPlan.ENQUEUE;
                    case INTERRUPT -> RunStarts.ThreadPlan.INTERRUPT;
                };
        RunCommand command = new RunCommand(runId, plan == RunStarts.ThreadPlan.NEW ? Ids.newThreadId() : threadId,
                caller.projectId(), agentId, mode, request.input(), request.metadata(), Instant.now());
        RunStarts.SpendCharge spend = spendCaps.chargeFor(caller);
        RunStarts.Start start = new RunStarts.Start(command, plan, caller.keyFamily(), caller.limitedToOwnThreads(),
                request.metadata(), reservation, spend, LaunchedRun.listened(mode) ? live.nodeId() : null, lease.nodeId());
        return start(start, mayProduce);
    }

    /**
     * Listens for the run's events, starts it (one Redis call where Redis allows: {@link RunStarts}) and produces its
     * command; what refused it, or anything that failed after it was recorded, is answered as a problem (the run refused
     * in Redis, its thread and charge given back).
     */
    private LaunchedRun start(RunStarts.Start start, Predicate<String> mayProduce) {
        RunCommand command = start.command();
        String runId = command.runId();
        RunSubscription subscription = null;
        boolean recorded = false;
        boolean sending = false;
        try {
            if (LaunchedRun.listened(command.mode())) {
                // Listening before the run exists: the relay publishes its events to this node from the first one on.
                subscription = live.subscribeNew(runId);
            }
            RunStarts.Outcome outcome = starts.start(start);
            recorded = outcome instanceof RunStarts.Started || outcome instanceof RunStarts.Waiting;
            if (!recorded) {
                throw refusal(outcome, command);
            }
            if (!mayProduce.test(runId)) {
                refuse(runId);
                undo(start, subscription);
                throw new ReservationLost();
            }
            if (outcome instanceof RunStarts.Waiting waiting) {
                if (start.thread() == RunStarts.ThreadPlan.INTERRUPT) {
                    canceller.cancel(waiting.holder());
                }
                return new LaunchedRun(command, subscription, new LaunchedRun.Waiting(waiting.holder(), waiting.place()));
            }
            sending = true;
            commands.send(command);
            if (lease.held()) {
                RunSubscription events = subscription;
                lease.confirmLater(runId, events == null ? () -> false : events::heardFrom);
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
            undo(start, subscription);
            if (recorded) {
                // A start whose answer was lost may have counted the run too: the cap errs on the safe side then.
                refundRun(start, runId);
            }
            throw new ApiProblem(ErrorCode.UPSTREAM_UNAVAILABLE, "the run could not be queued; try again shortly")
                    .header("x-run-id", runId);
        } catch (RuntimeException e) {
            closeQuietly(subscription);
            if (recorded) {
                refundRun(start, runId); // the start counted it: whatever refused the run after that gives it back
            }
            throw e;
        }
    }

    /** What a start that recorded nothing answers. */
    private RuntimeException refusal(RunStarts.Outcome outcome, RunCommand command) {
        return switch (outcome) {
            case RunStarts.KeyHeld held -> new KeyHeld(held.held());
            case RunStarts.NoAgent none -> noAgent(command.agentId());
            case RunStarts.NoThread none -> noThread(command.threadId());
            case RunStarts.OtherAgent other -> new ApiProblem(ErrorCode.INVALID_REQUEST, "thread " + command.threadId()
                    + " belongs to agent '" + other.agentId() + "', not '" + Echo.of(command.agentId()) + "'");
            case RunStarts.Busy busy -> new ApiProblem(ErrorCode.THREAD_BUSY, "thread " + command.threadId()
                    + " has an active run; wait for its run_end, or ask with if_busy=enqueue or if_busy=interrupt");
            case RunStarts.SpendCapReached reached -> spendCaps.capReached();
            case RunStarts.Started started -> new IllegalStateException("started");
            case RunStarts.Waiting waiting -> new IllegalStateException("waiting");
        };
    }

    private static ApiProblem noAgent(String agentId) {
        return new ApiProblem(ErrorCode.AGENT_NOT_FOUND, "project has no agent '" + Echo.of(agentId) + "'");
    }

    private static ApiProblem noThread(@Nullable String threadId) {
        // Another project's thread (or, for a publishable key, another key's) is reported exactly like a missing one.
        return new ApiProblem(ErrorCode.THREAD_NOT_FOUND, "no thread '" + Echo.of(String.valueOf(threadId)) + "' in this project");
    }

    private static void closeQuietly(@Nullable RunSubscription subscription) {
        if (subscription != null) {
            subscription.close();
        }
    }

    /** Gives back the charge of a run that was recorded and then not accepted. */
    private void refundRun(RunStarts.Start start, String runId) {
        if (start.spend() == null) {
            return;
        }
        try {
            starts.refund(start.spend());
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

    /** Takes back the thread lock (or the new thread) and the subscription of a refused run. */
    private void undo(RunStarts.Start start, @Nullable RunSubscription subscription) {
        RunCommand command = start.command();
        try {
            closeQuietly(subscription);
            switch (start.thread()) {
                case NONE -> { }
                case NEW -> threads.delete(command.threadId());
                default -> {
                    threads.withdraw(command.threadId(), command.runId());
                    // A run waiting for the thread now is started by a sweeper (this node has no command producer for it).
                    threads.unlock(command.threadId(), command.runId());
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

    /** The idempotency key names a run already; nothing was started. */
    static final class KeyHeld extends RuntimeException {
        private final IdempotencyKeys.Held held;

        KeyHeld(IdempotencyKeys.Held held) {
            super("the idempotency key names a run already", null, false, false);
            this.held = held;
        }

        IdempotencyKeys.Held held() {
            return held;
        }
    }

    /** The run's idempotency key was taken over by another request before the run was produced; that one's run stands. */
    static final class ReservationLost extends RuntimeException {
        ReservationLost() {
            super("the idempotency key was taken over", null, false, false);
        }
    }
}
