package io.agentrun.api.read;

import io.agentrun.model.read.RunView;
import io.agentrun.platform.store.RunState;

/** A run's state as a client reads it: alone ({@link #of}), or in a list ({@link #listed}). */
public final class RunViews {

    private RunViews() {
    }

    /** Until the relay applied its run_end, a run its worker finished reads as running ({@link RunState#endPending()}). */
    public static RunView of(RunState run) {
        boolean endPending = run.endPending();
        boolean ended = run.ended();
        RunView.Failure error = run.errorCode() == null || endPending ? null
                : new RunView.Failure(run.errorCode(), run.errorMessage() == null ? "" : run.errorMessage());
        return new RunView(run.runId(), run.shownStatus(), run.agentId(), run.threadId(), run.mode(),
                run.attempt(), run.createdAt(), run.startedAt(), ended ? run.endedAt() : null, run.firstEventAt(), ended ? run.output() : null,
                ended ? run.outputJson() : null, endPending ? null : run.usage(), error, run.pendingApproval());
    }

    /** A run in a list: its view without the output (a list of long answers would be most of a page; read the run). */
    public static RunView listed(RunState run) {
        RunView view = of(run);
        return new RunView(view.runId(), view.status(), view.agentId(), view.threadId(), view.mode(), view.attempt(),
                view.createdAt(), view.startedAt(), view.endedAt(), view.firstEventAt(), null, null, view.usage(), view.error(), view.pendingApproval());
    }
}
