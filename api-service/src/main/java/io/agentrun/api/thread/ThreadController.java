package io.agentrun.api.thread;

import io.agentrun.api.caller.Caller;
import io.agentrun.api.caller.PublicSurface;
import io.agentrun.api.problem.JsonAnswers;
import io.agentrun.api.run.RunAccess;
import io.agentrun.api.run.RunCanceller;
import io.agentrun.model.thread.ThreadDeleted;
import io.agentrun.platform.store.ThreadStore;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code DELETE /api/v1/threads/{thread_id}}: the thread, its history, its runs' content and resume buffers go at
 * once; its active run is cancelled. A publishable key may delete what its family started (a widget's "forget
 * this conversation"); another project's thread is a missing one, and nothing is deleted.
 */
@RestController
class ThreadController {

    private final RunAccess access;
    private final ThreadStore threads;
    private final ThreadDeletions deletions;
    private final RunCanceller canceller;
    private final JsonAnswers answers;

    ThreadController(RunAccess access, ThreadStore threads, ThreadDeletions deletions, RunCanceller canceller, JsonAnswers answers) {
        this.access = access;
        this.threads = threads;
        this.deletions = deletions;
        this.canceller = canceller;
        this.answers = answers;
    }

    @PublicSurface
    @DeleteMapping("/api/v1/threads/{threadId}")
    ResponseEntity<byte[]> delete(Caller caller, @PathVariable String threadId) {
        access.requireThread(caller, threadId);
        Optional<String> active = threads.lockHolder(threadId);
        ThreadDeleted deleted = new ThreadDeleted(threadId, caller.projectId(), caller.label(), Instant.now(), threads.runIds(threadId));
        deletions.delete(deleted);
        // Its last events are ignored (the run's state says deleted); cancelling stops the model and the tools.
        active.ifPresent(canceller::cancel);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("thread_id", threadId);
        body.put("deleted", true);
        body.put("deleted_at", deleted.deletedAt());
        active.ifPresent(runId -> body.put("cancelled_run_id", runId));
        return answers.of(HttpStatus.OK, body);
    }
}
