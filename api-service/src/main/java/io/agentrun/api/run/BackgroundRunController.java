package io.agentrun.api.run;

import io.agentrun.api.caller.Caller;
import io.agentrun.api.problem.JsonAnswers;
import io.agentrun.model.command.RunCommand;
import io.agentrun.model.command.RunMode;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.read.AcceptedRun;
import io.agentrun.platform.store.RunState;
import io.agentrun.platform.store.RunStore;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /api/v1/agents/{agent_id}/runs[?thread_id=]}: a run nobody waits on. Validated, authorised, limited
 * and made idempotent exactly like a streamed run; answered {@code 202 Accepted} once its command is in Kafka, with
 * where to read it ({@code GET /api/v1/runs/{id}}, also the {@code Location}) and join its stream. It runs until it
 * ends or hits its agent's {@code run_timeout}; nothing on this node waits for it.
 *
 * <p>Not for publishable keys: a browser has a stream to hold.
 */
@RestController
class BackgroundRunController {

    private final RunRequestReader reader;
    private final IdempotentLauncher launcher;
    private final RunStore runs;
    private final JsonAnswers answers;

    BackgroundRunController(RunRequestReader reader, IdempotentLauncher launcher, RunStore runs, JsonAnswers answers) {
        this.reader = reader;
        this.launcher = launcher;
        this.runs = runs;
        this.answers = answers;
    }

    @PostMapping("/api/v1/agents/{agentId}/runs")
    ResponseEntity<byte[]> start(Caller caller, @PathVariable String agentId,
            @RequestParam(name = "thread_id", required = false) @Nullable String threadId,
            @RequestParam(name = "if_busy", required = false) @Nullable String ifBusy,
            @RequestHeader(name = "Idempotency-Key", required = false) @Nullable String idempotencyKey,
            HttpServletRequest request) {
        IfBusy policy = IfBusy.parse(ifBusy);
        RunRequest runRequest = reader.read(request);
        String thread = threadId == null || threadId.isBlank() ? null : threadId;
        RunCommand command = launcher.launch(caller, agentId, thread, RunMode.BACKGROUND, policy, runRequest, idempotencyKey, 0).command();
        // A repeated idempotent request shows the run as it is now
        RunStatus status = runs.find(command.runId()).map(RunState::shownStatus).orElse(RunStatus.QUEUED);
        AcceptedRun accepted = AcceptedRun.of(command.runId(), command.threadId(), command.agentId(), status);
        return ResponseEntity.accepted()
                .location(URI.create(accepted.links().self()))
                .header("x-run-id", command.runId())
                .header("x-thread-id", command.threadId())
                .header(HttpHeaders.CACHE_CONTROL, "no-store")
                .contentType(MediaType.APPLICATION_JSON)
                .body(answers.bytes(accepted));
    }
}
