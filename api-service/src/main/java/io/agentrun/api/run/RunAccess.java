package io.agentrun.api.run;

import io.agentrun.api.caller.Caller;
import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.Echo;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.model.id.Ids;
import io.agentrun.platform.store.RunState;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.ThreadInfo;
import io.agentrun.platform.store.ThreadStore;

/**
 * Finds a run a caller names by thread and run id — only within the caller's project: a thread or run of
 * another project is answered exactly like one that does not exist.
 */
public final class RunAccess {

    private final ThreadStore threads;
    private final RunStore runs;

    public RunAccess(ThreadStore threads, RunStore runs) {
        this.threads = threads;
        this.runs = runs;
    }

    public RunState require(Caller caller, String threadId, String runId) {
        requireThread(caller, threadId);
        RunState run = Ids.hasShape(Ids.RUN, runId) ? runs.find(runId).orElse(null) : null;
        if (run == null || !threadId.equals(run.threadId()) || !run.projectId().equals(caller.projectId())) {
            throw new ApiProblem(ErrorCode.RUN_NOT_FOUND, "no run '" + Echo.of(runId) + "' in thread " + threadId);
        }
        return run;
    }

    /** The caller's thread; another project's (or, for a publishable key, another family's) is a missing one. */
    public ThreadInfo requireThread(Caller caller, String threadId) {
        ThreadInfo thread = Ids.hasShape(Ids.THREAD, threadId) ? threads.find(threadId).orElse(null) : null;
        if (thread == null || !thread.projectId().equals(caller.projectId()) || !caller.maySee(thread.keyFamily())) {
            throw new ApiProblem(ErrorCode.THREAD_NOT_FOUND, "no thread '" + Echo.of(threadId) + "' in this project");
        }
        return thread;
    }

    /** The caller's run, threaded or one-off, by its id alone. */
    public RunState requireRun(Caller caller, String runId) {
        RunState run = Ids.hasShape(Ids.RUN, runId) ? runs.find(runId).orElse(null) : null;
        if (run == null || run.deleted() || !run.projectId().equals(caller.projectId()) || !caller.maySee(run.keyFamily())) {
            throw new ApiProblem(ErrorCode.RUN_NOT_FOUND, "no run '" + Echo.of(runId) + "' in this project");
        }
        return run;
    }
}
