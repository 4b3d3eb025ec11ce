package io.agentrun.worker.run;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.worker.agent.Resume;
import io.agentrun.worker.agent.RunPausedException;
import io.agentrun.worker.mcp.McpToolbox;
import io.agentrun.worker.WorkerSettings;
import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.agent.ContextDocument;
import io.agentrun.model.command.RunCommand;
import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.event.Usage;
import io.agentrun.model.thread.ChatMessage;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.redis.RedisRetry;
import io.agentrun.platform.store.AgentCatalog;
import io.agentrun.platform.store.ContextStore;
import io.agentrun.platform.store.RunOwnership;
import io.agentrun.platform.store.ThreadStore;
import io.agentrun.worker.agent.AgentRun;
import io.agentrun.worker.context.RunContexts;
import io.agentrun.worker.agent.RunSetup;
import io.agentrun.worker.cancel.CancelToken;
import io.agentrun.worker.cancel.RunCancelledException;
import io.agentrun.worker.emit.EmitFailedException;
import io.agentrun.worker.emit.EventPublisher;
import io.agentrun.worker.emit.RunEmitter;
import io.agentrun.worker.provider.ModelException;
import io.lettuce.core.RedisException;
import java.time.Clock;
import java.util.ArrayList;
import io.agentrun.model.json.CodecException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Executes one claimed run: loads the agent, history and contexts, plays the run ({@link AgentRun}) into
 * Kafka as events of the claim's epoch, and lets go of the run — finished once its run_end is in Kafka, or
 * handed back unfinished (this worker stops, Kafka is unreachable) for another worker to continue.
 */
final class RunExecutor {

    private static final Logger log = LoggerFactory.getLogger(RunExecutor.class);

    private final RunOwnership ownership;
    private final ThreadStore threads;
    private final AgentCatalog agents;
    private final ContextStore contexts;
    private final AgentRun run;
    private final EventPublisher publisher;
    private final WorkerSettings settings;
    private final Clock clock;
    private final RedisConnections redis;
    private final McpToolbox mcpTools;
    private final JsonCodec codec;

    RunExecutor(RunOwnership ownership, ThreadStore threads, AgentCatalog agents, ContextStore contexts, AgentRun run,
            EventPublisher publisher, WorkerSettings settings, Clock clock, RedisConnections redis, McpToolbox mcpTools, JsonCodec codec) {
        this.codec = codec;
        this.redis = redis;
        this.mcpTools = mcpTools;
        this.ownership = ownership;
        this.threads = threads;
        this.agents = agents;
        this.contexts = contexts;
        this.run = run;
        this.publisher = publisher;
        this.settings = settings;
        this.clock = clock;
    }

    /**
     * Runs {@code command}, which this worker claimed as {@code claim}. Its run_start carries the claim's
     * epoch as {@code attempt}: 2 or more after a takeover, continuing the seq numbering where the relay
     * fenced the earlier attempt.
     */
    public RunOutcome execute(RunCommand command, RunOwnership.Claim.Won claim, CancelToken token) {
        RunEmitter emitter = new RunEmitter(publisher, command, claim.epoch(), claim.firstSeq(), clock);
        if (command.threadId() != null) {
            threads.extendLockForStart(command.threadId(), command.runId(), command.createdAt()); // time in the queue does not count
        }
        try {
            RunStatus status = run.play(command, claim.epoch(), claim.resumes(), () -> setup(command, claim.resumes(), token), token, emitter);
            return finish(command, claim, emitter, status);
        } catch (RunPausedException paused) {
            return park(command, claim, emitter, paused);
        } catch (RunCancelledException | InterruptedException stopped) {
            flushQuietly(emitter);
            if (token.reason() == CancelToken.Reason.LEASE_LOST) {
                log.warn("run {} stopped here: its lease was lost and another worker continues it", command.runId());
                return RunOutcome.LEASE_LOST;
            }
            log.info("run {} handed back: worker stopping", command.runId());
            return handBack(command, claim);
        } catch (EmitFailedException e) {
            log.error("run {} handed back: {}", command.runId(), e.getMessage(), e.getCause());
            return handBack(command, claim);
        }
    }

    /**
     * The run's setup, read from Redis again while Redis does not answer (a Redis Cluster failover takes seconds): the
     * run is claimed and its run_start sent, so it waits rather than fails. A lost lease (Redis stayed away longer than
     * the lease) or a stopping worker ends the wait; the run goes on elsewhere.
     */
    private RunSetup setup(RunCommand command, boolean resumes, CancelToken token) {
        try {
            return RedisRetry.untilAnswered(() -> loadSetup(command, resumes), RedisRetry.NO_TIMEOUT, failure -> {
                log.warn("run {}: could not read its setup from Redis ({}); trying again", command.runId(), failure.getMessage());
                return !token.isCancelled();
            });
        } catch (RedisException e) {
            token.throwIfCancelled();
            throw new RunCancelledException(CancelToken.Reason.SHUTDOWN); // interrupted: the worker is stopping
        }
    }

    /** The agent and the thread's history are read in one round trip (both sent, then both awaited). */
    private RunSetup loadSetup(RunCommand command, boolean resumes) {
        var agent = agents.findAsync(command.projectId(), command.agentId());
        var history = command.threadId() == null ? CompletableFuture.completedFuture(List.<ChatMessage>of())
                : threads.historyAsync(command.threadId());
        try {
            redis.await(CompletableFuture.allOf(agent, history), redis.commandTimeout(), "the run's agent and history");
        } catch (RedisException e) {
            if (e.getCause() instanceof CodecException notRedis) {
                throw notRedis; // a definition or message that does not bind: reading it again would not help
            }
            throw e;
        }
        AgentDefinition definition = agent.join()
                .orElseThrow(() -> new ModelException("agent_not_found", "agent '" + command.agentId() + "' no longer exists", false));
        Resume resume = resumes ? ownership.pauseState(command.runId()).map(this::resume).orElse(null) : null;
        return new RunSetup(command, definition, withoutThisRun(command, history.join()), contexts(command, definition),
                mcpTools.toolsFor(command.projectId(), definition), resume);
    }

    private Resume resume(RunOwnership.PauseState state) {
        return new Resume(codec.mapper().readTree(state.checkpointJson()), state.decision(), state.reason(), state.decidedBy());
    }

    /**
     * The thread's history before this run. An earlier attempt of the same run may have stored its question and
     * answer already (its message_final was applied before it died; the relay takes them back only when this
     * attempt's run_start is applied): the model must not see them.
     */
    private static List<ChatMessage> withoutThisRun(RunCommand command, List<ChatMessage> history) {
        return history.stream().filter(message -> !command.runId().equals(message.runId())).toList();
    }

    private RunContexts contexts(RunCommand command, AgentDefinition agent) {
        List<ContextDocument> found = new ArrayList<>();
        for (String id : command.input().contexts()) {
            contexts.find(command.projectId(), id).ifPresentOrElse(found::add,
                    () -> log.warn("run {}: context {} was deleted after the run was accepted", command.runId(), id));
        }
        return new RunContexts(found, agent.contextTokenBudget());
    }

    /**
     * approval_required is emitted: once Kafka has it (with the checkpoint), this worker lets the run go — nobody holds a
     * thread, a slot or a lease while a person decides. A decision recorded meanwhile hands it back to go on at once.
     */
    private RunOutcome park(RunCommand command, RunOwnership.Claim.Won claim, RunEmitter emitter, RunPausedException paused) {
        try {
            emitter.awaitDelivered(settings.deliveryTimeout());
        } catch (EmitFailedException | InterruptedException e) {
            log.warn("run {}: its approval_required may not be in Kafka ({}); handed back", command.runId(), e.getMessage());
            return handBack(command, claim);
        }
        try {
            if (command.threadId() != null) {
                threads.extendLockUntil(command.threadId(), command.runId(), paused.deadline()).toCompletableFuture()
                        .get(redis.commandTimeout().toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
            }
            RunOwnership.Parked parked = ownership.park(command.runId(), settings.id(), claim.epoch(), paused.toolCallId(), paused.deadline());
            if (parked == RunOwnership.Parked.NOT_MINE) {
                return RunOutcome.LEASE_LOST;
            }
            log.info("run {} waits for a decision on tool call {} until {}{}", command.runId(), paused.toolCallId(), paused.deadline(),
                    parked == RunOwnership.Parked.DECIDED ? " (decided already: it goes on now)" : "");
        } catch (RuntimeException | java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            log.warn("run {} waits for a decision, but could not be let go of ({}); it is taken over when its lease lapses",
                    command.runId(), e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return RunOutcome.PAUSED;
    }

    /** run_end is emitted: once Kafka has it, the run is over, whatever else fails now. */
    private RunOutcome finish(RunCommand command, RunOwnership.Claim.Won claim, RunEmitter emitter, RunStatus status)
            throws InterruptedException {
        emitter.awaitDelivered(settings.deliveryTimeout());
        try {
            if (!ownership.finish(command.runId(), settings.id(), claim.epoch(), status)) {
                log.warn("run {} ended {} here after its lease was lost; the relay fences these events",
                        command.runId(), status.wireName());
                return RunOutcome.LEASE_LOST;
            }
        } catch (RuntimeException e) {
            log.warn("run {} ended {} but its state could not be marked ({}); the relay will", command.runId(),
                    status.wireName(), e.getMessage());
        }
        return RunOutcome.FINISHED;
    }

    /**
     * Ends a run failed without running it, as the sweeper decided ({@code attempts_exhausted}: claimed too
     * often without ending; {@code not_started}: never claimed in time; {@code not_queued}: its api node died before confirming it;
     * {@code command_lost}): a run_start, an
     * error with {@code code} and a run_end, in the sweeper's own epoch.
     */
    public RunOutcome giveUp(RunCommand command, RunOwnership.Claim.Won claim, String code) {
        log.error("run {} ends failed without running: {}", command.runId(), code);
        RunEmitter emitter = new RunEmitter(publisher, command, claim.epoch(), claim.firstSeq(), clock);
        try {
            emitter.emit(new EventData.RunStart(command.threadId(), command.runId(), command.agentId(), claim.epoch(),
                    command.input(), command.metadata()));
            emitter.emit(new EventData.RunError(code, giveUpMessage(code, claim.epoch()), false));
            emitter.emit(new EventData.RunEnd(RunStatus.FAILED, "", Usage.NONE, 0));
            return finish(command, claim, emitter, RunStatus.FAILED);
        } catch (EmitFailedException | InterruptedException e) {
            log.error("run {} could not be ended: {}", command.runId(), e.getMessage());
            return handBack(command, claim);
        }
    }

    private static String giveUpMessage(String code, int epoch) {
        return switch (code) {
            case "attempts_exhausted" -> "the run was started " + (epoch - 1) + " times without finishing; giving up";
            case "not_started" -> "no worker could start the run in time";
            case "not_queued" -> "the api node that took the request stopped before it confirmed the run's command";
            default -> "the run's command was lost before it started";
        };
    }

    private RunOutcome handBack(RunCommand command, RunOwnership.Claim.Won claim) {
        try {
            ownership.handBack(command.runId(), settings.id(), claim.epoch());
        } catch (RuntimeException e) {
            log.warn("run {} could not be handed back ({}); it is taken over when its lease lapses", command.runId(), e.getMessage());
        }
        return RunOutcome.HANDED_BACK;
    }

    /** Hands back only after what this attempt said is in Kafka, so it cannot land after the next attempt's events. */
    private void flushQuietly(RunEmitter emitter) {
        try {
            emitter.awaitDelivered(settings.deliveryTimeout());
        } catch (EmitFailedException | InterruptedException e) {
            log.warn("events of a handed-back run may be incomplete: {}", e.getMessage());
        }
    }
}
