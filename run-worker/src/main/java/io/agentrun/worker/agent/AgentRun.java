package io.agentrun.worker.agent;

import io.agentrun.worker.emit.EventSink;
import io.agentrun.model.command.RunCommand;
import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.event.Usage;
import io.agentrun.platform.observe.Tracing;
import io.agentrun.worker.cancel.CancelToken;
import io.agentrun.worker.cancel.RunCancelledException;
import io.agentrun.worker.emit.EmitFailedException;
import io.agentrun.worker.provider.ModelException;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt of a run as the client sees it: {@code run_start}, the agent loop's events, and always a
 * {@code run_end} — {@code completed}; {@code failed} after an {@code error}; {@code cancelled} keeping what
 * was said; {@code timed_out} after an {@code error} once the agent's time budget is spent.
 */
public final class AgentRun {

    private static final Logger log = LoggerFactory.getLogger(AgentRun.class);

    private final AgentLoop loop;
    private final ScheduledExecutorService timers;
    private final Duration defaultTimeout;

    public AgentRun(AgentLoop loop, ScheduledExecutorService timers, Duration defaultTimeout) {
        this.loop = loop;
        this.timers = timers;
        this.defaultTimeout = defaultTimeout;
    }

    /** Loads what a run starts from; may fail with a {@link ModelException} (e.g. the agent was deleted). */
    @FunctionalInterface
    public interface SetupLoader {
        RunSetup load();
    }

    /**
     * Plays the run into {@code sink}.
     *
     * @return the status its run_end carries
     * @throws RunCancelledException for {@link CancelToken.Reason#SHUTDOWN} and {@link CancelToken.Reason#LEASE_LOST}: no run_end, the run goes on elsewhere
     * @throws EmitFailedException when the events cannot be written: no run_end either
     */
    public RunStatus play(RunCommand command, int attempt, SetupLoader loader, CancelToken token, EventSink sink)
            throws InterruptedException {
        return play(command, attempt, false, loader, token, sink);
    }

    /**
     * @param resumes the run paused for a person's decision and goes on from its checkpoint: no second run_start (its
     *     first event is approval_decided), unless the checkpoint is gone (then it starts over, as after a takeover)
     * @throws RunPausedException when it pauses (again) for a decision: its approval_required is emitted, no run_end
     */
    public RunStatus play(RunCommand command, int attempt, boolean resumes, SetupLoader loader, CancelToken token, EventSink sink)
            throws InterruptedException {
        long started = System.nanoTime();
        if (!resumes) {
            sink.emit(runStart(command, attempt));
        }
        RunProgress progress = new RunProgress();
        Duration budget = defaultTimeout;
        ScheduledFuture<?> deadline = null;
        try {
            RunSetup setup = loader.load();
            if (resumes && setup.resume() == null) {
                sink.emit(runStart(command, attempt));
            }
            budget = setup.agent().runTimeout() != null ? setup.agent().runTimeout() : defaultTimeout;
            deadline = timers.schedule(() -> token.cancel(CancelToken.Reason.TIMED_OUT), budget.toMillis(), TimeUnit.MILLISECONDS);
            token.throwIfCancelled();
            loop.run(setup, token, sink, progress);
            return end(sink, RunStatus.COMPLETED, progress, started);
        } catch (ModelException e) {
            sink.emit(new EventData.RunError(e.code(), e.getMessage(), e.retryable()));
            return end(sink, RunStatus.FAILED, progress, started);
        } catch (RunCancelledException e) {
            return switch (e.reason()) {
                case REQUESTED -> {
                    // What was already said stays said: the partial message enters the history, marked cancelled.
                    progress.partial().ifPresent(partial -> sink.emit(
                            new EventData.MessageFinal(partial.messageId(), partial.text(), Usage.NONE, true)));
                    yield end(sink, RunStatus.CANCELLED, progress, started);
                }
                case TIMED_OUT -> {
                    sink.emit(new EventData.RunError("run_timeout", "the run exceeded its time budget of " + budget, true));
                    yield end(sink, RunStatus.TIMED_OUT, progress, started);
                }
                case SHUTDOWN, LEASE_LOST -> throw e;
            };
        } catch (EmitFailedException | RunPausedException e) {
            throw e;
        } catch (RuntimeException e) {
            log.error("run {} failed unexpectedly", command.runId(), e);
            sink.emit(new EventData.RunError("internal_error", "the worker failed while running the agent", true));
            return end(sink, RunStatus.FAILED, progress, started);
        } finally {
            if (deadline != null) {
                deadline.cancel(false);
            }
        }
    }

    private static EventData.RunStart runStart(RunCommand command, int attempt) {
        return new EventData.RunStart(command.threadId(), command.runId(), command.agentId(), attempt, command.input(), command.metadata(),
                Tracing.currentTraceId());
    }

    private static RunStatus end(EventSink sink, RunStatus status, RunProgress progress, long startedNanos) {
        long durationMs = Duration.ofNanos(System.nanoTime() - startedNanos).toMillis();
        sink.emit(new EventData.RunEnd(status, progress.output(), progress.usage(), durationMs,
                status == RunStatus.COMPLETED ? progress.outputJson() : null));
        return status;
    }
}
