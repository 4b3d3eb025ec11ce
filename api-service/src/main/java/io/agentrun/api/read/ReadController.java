package io.agentrun.api.read;

import io.agentrun.api.caller.Caller;
import io.agentrun.api.caller.PublicSurface;
import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.api.problem.JsonAnswers;
import io.agentrun.api.run.RunAccess;
import io.agentrun.model.read.MessagePage;
import io.agentrun.model.read.RunPage;
import io.agentrun.model.read.RunView;
import io.agentrun.model.read.ThreadView;
import io.agentrun.platform.store.RunState;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.ThreadDetails;
import io.agentrun.platform.store.ThreadInfo;
import io.agentrun.platform.store.ThreadStore;
import io.lettuce.core.ScoredValue;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET} a run, a thread, a thread's history and its runs. Secret keys and sessions read everything of
 * their project; a publishable key only what its family started.
 */
@RestController
class ReadController {

    private static final int DEFAULT_MESSAGES = 50;
    private static final int DEFAULT_RUNS = 20;

    private final RunAccess access;
    private final ThreadStore threads;
    private final RunStore runs;
    private final JsonAnswers answers;
    private final RunListing listing;

    ReadController(RunAccess access, ThreadStore threads, RunStore runs, JsonAnswers answers, RunListing listing) {
        this.listing = listing;
        this.access = access;
        this.threads = threads;
        this.runs = runs;
        this.answers = answers;
    }

    @PublicSurface
    @GetMapping("/api/v1/runs/{runId}")
    ResponseEntity<byte[]> run(Caller caller, @PathVariable String runId) {
        return answers.noStore(HttpStatus.OK, RunViews.of(access.requireRun(caller, runId)));
    }

    /**
     * The project's runs, newest first (not a {@link PublicSurface}: a publishable key sees only its own family's
     * threads, never a project's list).
     */
    @GetMapping("/api/v1/runs")
    ResponseEntity<byte[]> projectRuns(Caller caller, RunListing.Query query) {
        return answers.noStore(HttpStatus.OK, listing.page(caller.projectId(), query));
    }

    @PublicSurface
    @GetMapping("/api/v1/threads/{threadId}")
    ResponseEntity<byte[]> thread(Caller caller, @PathVariable String threadId) {
        access.requireThread(caller, threadId);
        ThreadDetails details = threads.details(threadId).orElseThrow(() -> gone(caller, threadId));
        ThreadInfo info = details.info();
        ThreadView view = new ThreadView(threadId, info.agentId(), details.createdAt(), details.updatedAt(), details.activeRun(),
                details.messageCount(), details.metadata());
        return answers.noStore(HttpStatus.OK, view);
    }

    @PublicSurface
    @GetMapping("/api/v1/threads/{threadId}/messages")
    ResponseEntity<byte[]> messages(Caller caller, @PathVariable String threadId,
            @RequestParam(name = "limit", required = false) @Nullable String limit,
            @RequestParam(name = "before", required = false) @Nullable String before) {
        access.requireThread(caller, threadId);
        ThreadStore.MessageSlice slice = threads.messages(threadId, PageCursor.messagePosition(before),
                PageCursor.limit(limit, DEFAULT_MESSAGES));
        String next = slice.firstPosition() > 0 && !slice.messages().isEmpty() ? PageCursor.ofMessage(slice.firstPosition()) : null;
        return answers.noStore(HttpStatus.OK, new MessagePage(slice.messages(), next));
    }

    @PublicSurface
    @GetMapping("/api/v1/threads/{threadId}/runs")
    ResponseEntity<byte[]> runs(Caller caller, @PathVariable String threadId,
            @RequestParam(name = "limit", required = false) @Nullable String limit,
            @RequestParam(name = "before", required = false) @Nullable String before) {
        access.requireThread(caller, threadId);
        int size = PageCursor.limit(limit, DEFAULT_RUNS);
        PageCursor.RunPosition position = PageCursor.runPosition(before);
        // One more than asked: whether there is a next page
        List<ScoredValue<String>> ids = threads.runs(threadId, position.createdMs(), position.runId(), size + 1);
        List<RunView> views = new ArrayList<>();
        for (ScoredValue<String> id : ids.subList(0, Math.min(size, ids.size()))) {
            runs.find(id.getValue()).map(RunViews::of).ifPresent(views::add);
        }
        ScoredValue<String> last = ids.size() > size ? ids.get(size - 1) : null;
        @Nullable String next = last == null ? null : PageCursor.ofRun((long) last.getScore(), last.getValue());
        return answers.noStore(HttpStatus.OK, new RunPage(views, next));
    }

    /** The thread went between the access check and the read (deleted, or expired): as missing as any other. */
    private static ApiProblem gone(Caller caller, String threadId) {
        return new ApiProblem(ErrorCode.THREAD_NOT_FOUND, "no thread '" + threadId + "' in this project");
    }

}
