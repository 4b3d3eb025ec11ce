package io.agentrun.worker.run;

import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.command.RunCommand;
import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.event.Usage;
import io.agentrun.model.id.Ids;
import io.agentrun.model.thread.ChatMessage;
import io.agentrun.platform.store.AgentCatalog;
import io.agentrun.platform.store.RunState;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.ThreadStore;
import io.agentrun.worker.cancel.CancelToken;
import io.agentrun.worker.cancel.RunCancelledException;
import io.agentrun.worker.emit.EmitFailedException;
import io.agentrun.worker.emit.EventPublisher;
import io.agentrun.worker.emit.RunEmitter;
import io.agentrun.worker.model.ModelException;
import io.agentrun.worker.model.ModelListener;
import io.agentrun.worker.model.ModelRegistry;
import io.agentrun.worker.model.ModelRequest;
import io.agentrun.worker.model.ModelTurn;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Executes one delivery of a run command: checks it has not finished already, emits {@code run_start},
 * runs the agent's model turn, and always ends with {@code run_end} — unless the worker is shutting
 * down or Kafka is unreachable, in which case the command goes back for another attempt.
 */
public final class RunExecutor {

    private static final Logger log = LoggerFactory.getLogger(RunExecutor.class);

    private final RunStore runs;
    private final ThreadStore threads;
    private final AgentCatalog agents;
    private final ModelRegistry models;
    private final EventPublisher publisher;
    private final ScheduledExecutorService timers;
    private final WorkerSettings settings;
    private final Clock clock;

    public RunExecutor(RunStore runs, ThreadStore threads, AgentCatalog agents, ModelRegistry models,
            EventPublisher publisher, ScheduledExecutorService timers,
            WorkerSettings settings, Clock clock) {
        this.runs = runs;
        this.threads = threads;
        this.agents = agents;
        this.models = models;
        this.publisher = publisher;
        this.timers = timers;
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
        long firstSeq = attempt > 1 ? state.map(s -> s.lastSeq() + 1).orElse(0L) : 0L;
        RunEmitter emitter = new RunEmitter(publisher, command, firstSeq, clock);
        if (command.threadId() != null) {
            threads.extendLock(command.threadId(), command.runId()); // time in the queue does not count against the run
        }
        if (delivery >= settings.deliveryLimit()) {
            return giveUp(command, attempt, delivery, emitter);
        }
        ScheduledFuture<?> deadline = timers.schedule(() -> token.cancel(CancelToken.Reason.TIMED_OUT),
                settings.runTimeout().toMillis(), TimeUnit.MILLISECONDS);
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
        } finally {
            deadline.cancel(false);
        }
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
            emitter.emit(new EventData.RunStart(command.threadId(), command.runId(), command.agentId(), attempt, command.input()));
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

    /**
     * Emits the run's events from run_start to run_end.
     *
     * @throws RunCancelledException only for {@link CancelToken.Reason#SHUTDOWN}: no run_end, another worker takes over
     */
    private RunStatus runToEnd(RunCommand command, int attempt, CancelToken token, RunEmitter emitter)
            throws InterruptedException {
        long started = System.nanoTime();
        emitter.emit(new EventData.RunStart(command.threadId(), command.runId(), command.agentId(), attempt, command.input()));
        StreamedText text = new StreamedText(emitter);
        try {
            AgentDefinition agent = agents.find(command.projectId(), command.agentId())
                    .orElseThrow(() -> new ModelException("agent_not_found", "agent '" + command.agentId() + "' no longer exists", false));
            List<ChatMessage> history = command.threadId() == null ? List.of() : threads.history(command.threadId());
            ModelTurn turn = models.forProvider(agent.provider())
                    .stream(new ModelRequest(agent, history, command.input(), token), text);
            emitter.emit(new EventData.MessageFinal(text.messageId, turn.text(), turn.usage()));
            return end(emitter, RunStatus.COMPLETED, turn.text(), turn.usage(), started);
        } catch (ModelException e) {
            emitter.emit(new EventData.RunError(e.code(), e.getMessage(), e.retryable()));
            return end(emitter, RunStatus.FAILED, text.soFar(), Usage.NONE, started);
        } catch (RunCancelledException e) {
            return switch (e.reason()) {
                case REQUESTED -> end(emitter, RunStatus.CANCELLED, text.soFar(), Usage.NONE, started);
                case TIMED_OUT -> {
                    emitter.emit(new EventData.RunError("run_timeout",
                            "the run exceeded its time budget of " + settings.runTimeout(), true));
                    yield end(emitter, RunStatus.TIMED_OUT, text.soFar(), Usage.NONE, started);
                }
                case SHUTDOWN -> throw e;
            };
        } catch (RuntimeException e) {
            log.error("run {} failed unexpectedly", command.runId(), e);
            emitter.emit(new EventData.RunError("internal_error", "the worker failed while running the agent", true));
            return end(emitter, RunStatus.FAILED, text.soFar(), Usage.NONE, started);
        }
    }

    private static RunStatus end(RunEmitter emitter, RunStatus status, String output, Usage usage, long startedNanos) {
        long durationMs = Duration.ofNanos(System.nanoTime() - startedNanos).toMillis();
        emitter.emit(new EventData.RunEnd(status, output, usage, durationMs));
        return status;
    }

    /** Turns model callbacks into events and keeps the text said so far (the output of a cancelled run). */
    private static final class StreamedText implements ModelListener {
        private final RunEmitter emitter;
        private final String messageId = Ids.newMessageId();
        private final StringBuilder text = new StringBuilder();

        StreamedText(RunEmitter emitter) {
            this.emitter = emitter;
        }

        @Override
        public void onThinking(String part) {
            emitter.emit(new EventData.ThinkingPart(part));
        }

        @Override
        public void onTextDelta(String delta) {
            text.append(delta);
            emitter.emit(new EventData.MessageDelta(messageId, delta));
        }

        String soFar() {
            return text.toString();
        }
    }
}
