package io.agentrun.worker.run;

import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.agent.ContextDocument;
import io.agentrun.model.command.RunCommand;
import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.event.Usage;
import io.agentrun.model.thread.ChatMessage;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.RunEventLog;
import io.agentrun.platform.store.AgentCatalog;
import io.agentrun.platform.store.ContextStore;
import io.agentrun.platform.store.RunState;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.ThreadStore;
import io.agentrun.worker.agent.AgentRun;
import io.agentrun.worker.agent.RunContexts;
import io.agentrun.worker.agent.RunSetup;
import io.agentrun.worker.cancel.CancelToken;
import io.agentrun.worker.cancel.RunCancelledException;
import io.agentrun.worker.emit.EmitFailedException;
import io.agentrun.worker.emit.EventPublisher;
import io.agentrun.worker.emit.RunEmitter;
import io.agentrun.worker.model.ModelException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Executes one delivery of a run command: checks it has not finished already, counts the attempt, loads
 * the agent, history and contexts, plays the run ({@link AgentRun}) into Kafka, and decides what the
 * delivery's acknowledgement will be — the command goes back when the worker is shutting down or Kafka is
 * unreachable, never once run_end is in Kafka.
 */
public final class RunExecutor {

    private static final Logger log = LoggerFactory.getLogger(RunExecutor.class);

    private final RunStore runs;
    private final ThreadStore threads;
    private final AgentCatalog agents;
    private final ContextStore contexts;
    private final AgentRun run;
    private final RunEventLog eventLog;
    private final JsonCodec codec;
    private final EventPublisher publisher;
    private final WorkerSettings settings;
    private final Clock clock;

    public RunExecutor(RunStore runs, ThreadStore threads, AgentCatalog agents, ContextStore contexts, AgentRun run,
            RunEventLog eventLog, JsonCodec codec, EventPublisher publisher, WorkerSettings settings, Clock clock) {
        this.runs = runs;
        this.threads = threads;
        this.agents = agents;
        this.contexts = contexts;
        this.run = run;
        this.eventLog = eventLog;
        this.codec = codec;
        this.publisher = publisher;
        this.settings = settings;
        this.clock = clock;
    }

    /**
     * Runs {@code command}.
     *
     * @param delivery the share group's delivery count of this command (1 on first delivery)
     */
    public RunOutcome execute(RunCommand command, int delivery, CancelToken token) {
        Optional<RunState> state = runs.find(command.runId());
        if (state.isPresent() && state.get().status().isTerminal()) {
            log.info("run {} already ended {}; not running it again", command.runId(), state.get().status().wireName());
            return RunOutcome.ALREADY_FINISHED;
        }
        int attempt = runs.startAttempt(command.runId(), settings.id());
        if (attempt == 0) {
            attempt = delivery; // Redis lost the run; run it anyway, the event topic keeps the record
        }
        // A later attempt continues the numbering so clients can tell its events from the earlier ones.
        long firstSeq = 0L;
        if (attempt > 1) {
            EarlierAttempts earlier = earlierAttempts(command, state);
            if (earlier.ended() != null) {
                log.info("run {}: an earlier attempt's run_end is in Kafka; not running it again", command.runId());
                runs.markFinished(command.runId(), earlier.ended());
                return RunOutcome.ALREADY_FINISHED;
            }
            firstSeq = earlier.nextSeq();
        }
        RunEmitter emitter = new RunEmitter(publisher, command, firstSeq, clock);
        if (command.threadId() != null) {
            threads.extendLock(command.threadId(), command.runId()); // time in the queue does not count against the run
        }
        if (delivery >= settings.deliveryLimit()) {
            return giveUp(command, attempt, delivery, emitter);
        }
        try {
            RunStatus status = runToEnd(command, attempt, token, emitter);
            return finish(command, emitter, status);
        } catch (RunCancelledException | InterruptedException shutdown) {
            log.info("run {} handed back: worker stopping", command.runId());
            flushQuietly(emitter);
            return RunOutcome.RETRY_LATER;
        } catch (EmitFailedException e) {
            log.error("run {} handed back: {}", command.runId(), e.getMessage(), e.getCause());
            return RunOutcome.RETRY_LATER;
        }
    }

    /** What earlier attempts of a run left in Kafka: the next free seq, and the final status if one ended it. */
    private record EarlierAttempts(long nextSeq, @org.jspecify.annotations.Nullable RunStatus ended) {
    }

    /**
     * Reads the run's events back from the event topic — the relay's {@code last_seq} may lag behind what a
     * crashed worker had written, and a worker may even have written run_end without knowing it landed.
     */
    private EarlierAttempts earlierAttempts(RunCommand command, Optional<RunState> state) {
        long fromRelay = state.map(s -> s.lastSeq() + 1).orElse(0L);
        long startOffset = state.map(RunState::startOffset).orElse(-1L);
        long last = -1;
        RunStatus ended = null;
        for (String json : eventLog.read(command.partitionKey(),
                RunEventLog.From.offset(startOffset, command.createdAt().minus(Duration.ofMinutes(1))),
                json -> command.runId().equals(codec.peekHeader(json).runId()))) {
            RunEvent event = codec.decodeEvent(json);
            last = Math.max(last, event.seq());
            if (event.data() instanceof EventData.RunEnd end) {
                ended = end.status();
            }
        }
        log.info("run {} continues after seq {} (relay had {})", command.runId(), last, fromRelay - 1);
        return new EarlierAttempts(Math.max(last + 1, fromRelay), ended);
    }

    private RunStatus runToEnd(RunCommand command, int attempt, CancelToken token, RunEmitter emitter)
            throws InterruptedException {
        return run.play(command, attempt, () -> setup(command), token, emitter);
    }

    private RunSetup setup(RunCommand command) {
        AgentDefinition agent = agents.find(command.projectId(), command.agentId())
                .orElseThrow(() -> new ModelException("agent_not_found", "agent '" + command.agentId() + "' no longer exists", false));
        List<ChatMessage> history = command.threadId() == null ? List.of() : threads.history(command.threadId());
        return new RunSetup(command, agent, history, contexts(command, agent));
    }

    private RunContexts contexts(RunCommand command, AgentDefinition agent) {
        List<ContextDocument> found = new ArrayList<>();
        for (String id : command.input().contexts()) {
            contexts.find(command.projectId(), id).ifPresentOrElse(found::add,
                    () -> log.warn("run {}: context {} was deleted after the run was accepted", command.runId(), id));
        }
        return new RunContexts(found, agent.contextTokenBudget());
    }

    /** run_end is emitted: once Kafka has it, the run is over, whatever else fails now. */
    private RunOutcome finish(RunCommand command, RunEmitter emitter, RunStatus status) throws InterruptedException {
        emitter.awaitDelivered(settings.deliveryTimeout());
        try {
            runs.markFinished(command.runId(), status);
        } catch (RuntimeException e) {
            log.warn("run {} ended {} but its state could not be marked ({}); the relay will", command.runId(),
                    status.wireName(), e.getMessage());
        }
        return RunOutcome.FINISHED;
    }

    /**
     * This delivery is the share group's last: if it were handed back too, the broker would archive the
     * command and the run would never end. End it failed, visibly, instead.
     */
    private RunOutcome giveUp(RunCommand command, int attempt, int delivery, RunEmitter emitter) {
        log.error("run {} delivered {} times without finishing; ending it failed", command.runId(), delivery);
        try {
            emitter.emit(new EventData.RunStart(command.threadId(), command.runId(), command.agentId(), attempt,
                    command.input(), command.metadata()));
            emitter.emit(new EventData.RunError("delivery_limit_reached",
                    "the run was started " + (delivery - 1) + " times without finishing; giving up", false));
            emitter.emit(new EventData.RunEnd(RunStatus.FAILED, "", Usage.NONE, 0));
            return finish(command, emitter, RunStatus.FAILED);
        } catch (EmitFailedException | InterruptedException e) {
            log.error("run {} could not be ended: {}", command.runId(), e.getMessage());
            return RunOutcome.RETRY_LATER;
        }
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
