package io.agentrun.api.run;

import io.agentrun.api.auth.Caller;
import io.agentrun.api.auth.SpendCaps;
import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.Echo;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.api.stream.LiveEvents;
import io.agentrun.api.upload.IssuedFiles;
import io.agentrun.api.stream.RunSubscription;
import io.agentrun.model.command.RunCommand;
import io.agentrun.model.command.RunInput;
import io.agentrun.model.command.RunMode;
import io.agentrun.model.id.Ids;
import io.agentrun.platform.store.AgentCatalog;
import io.agentrun.platform.store.ContextStore;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.ThreadInfo;
import io.agentrun.platform.store.ThreadStore;
import io.lettuce.core.RedisException;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts runs: checks the agent and the thread, takes the thread's lock, records the run, subscribes
 * to its live events and only then writes the command to Kafka — so no event can be missed. If Kafka
 * does not acknowledge, everything is undone and the caller gets 503 before any stream byte.
 */
public final class RunLauncher {

    private static final Logger log = LoggerFactory.getLogger(RunLauncher.class);

    private final AgentCatalog agents;
    private final ContextStore contexts;
    private final ThreadStore threads;
    private final RunStore runs;
    private final LiveEvents live;
    private final CommandProducer commands;
    private final SpendCaps spendCaps;
    private final IssuedFiles files;

    public RunLauncher(AgentCatalog agents, ContextStore contexts, ThreadStore threads, RunStore runs, LiveEvents live,
            CommandProducer commands, SpendCaps spendCaps, IssuedFiles files) {
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
    public LaunchedRun launch(Caller caller, String agentId, @Nullable String threadId, RunMode mode, RunRequest request) {
        if (agents.find(caller.projectId(), agentId).isEmpty()) {
            throw new ApiProblem(ErrorCode.AGENT_NOT_FOUND, "project has no agent '" + Echo.of(agentId) + "'");
        }
        requireKnownContexts(caller, request.input());
        files.requireIssued(caller.projectId(), request.input());
        String runId = Ids.newRunId();
        spendCaps.chargeRun(caller);
        ThreadClaim claim;
        try {
            claim = mode == RunMode.ONE_OFF ? ThreadClaim.NONE : claimThread(caller, agentId, threadId, runId);
        } catch (ApiProblem e) {
            spendCaps.refundRun(caller);
            throw e;
        }
        RunCommand command = new RunCommand(runId, claim.threadId, caller.projectId(), agentId, mode, request.input(),
                request.metadata(), Instant.now());
        RunSubscription subscription = null;
        boolean sendAttempted = false;
        try {
            runs.createQueued(command, caller.keyFamily());
            subscription = live.subscribe(runId, 0);
            sendAttempted = true;
            commands.send(command);
            return new LaunchedRun(command, subscription);
        } catch (CommandProducer.CommandNotSentException | RedisException | LiveEvents.SubscribeException e) {
            log.error("run {} not started: {}", runId, e.getMessage());
            undo(command, claim, subscription, sendAttempted);
            spendCaps.refundRun(caller);
            throw new ApiProblem(ErrorCode.UPSTREAM_UNAVAILABLE, "the run could not be queued; try again shortly");
        }
    }

    private void requireKnownContexts(Caller caller, RunInput input) {
        for (String contextId : input.contexts()) {
            if (!contexts.exists(caller.projectId(), contextId)) {
                throw new ApiProblem(ErrorCode.INVALID_REQUEST, "unknown context '" + Echo.of(contextId) + "' in 'contexts'");
            }
        }
    }

    private ThreadClaim claimThread(Caller caller, String agentId, @Nullable String threadId, String runId) {
        if (threadId == null) {
            String created = Ids.newThreadId();
            threads.create(created, caller.projectId(), agentId, caller.keyFamily());
            threads.tryLock(created, runId);
            return new ThreadClaim(created, true);
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
        if (!threads.tryLock(threadId, runId)) {
            throw new ApiProblem(ErrorCode.THREAD_BUSY, "thread " + threadId + " has an active run; wait for its run_end");
        }
        return new ThreadClaim(threadId, false);
    }

    /**
     * Takes back what {@link #launch} did. A command whose send timed out may still reach Kafka later, so
     * its run is marked failed rather than forgotten: a worker that gets it does not run it.
     */
    private void undo(RunCommand command, ThreadClaim claim, @Nullable RunSubscription subscription, boolean sendAttempted) {
        try {
            if (subscription != null) {
                subscription.close();
            }
            if (sendAttempted) {
                runs.markNotQueued(command.runId());
            } else {
                runs.delete(command.runId());
            }
            if (claim.threadId != null) {
                if (claim.created) {
                    threads.delete(claim.threadId);
                } else {
                    threads.unlock(claim.threadId, command.runId());
                }
            }
        } catch (RuntimeException e) {
            log.warn("could not fully undo run {} ({}); its thread lock expires by itself", command.runId(), e.getMessage());
        }
    }


    private record ThreadClaim(@Nullable String threadId, boolean created) {
        static final ThreadClaim NONE = new ThreadClaim(null, false);
    }
}
