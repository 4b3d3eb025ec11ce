package io.agentrun.api.run;

import io.agentrun.api.caller.Caller;
import io.agentrun.api.problem.JsonAnswers;
import io.agentrun.platform.store.RunState;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /api/v1/threads/{thread_id}/runs/{run_id}/cancel}: 202 and the run stops promptly — its
 * stream ends with {@code run_end cancelled}, keeping what was already said. Cancelling again is harmless;
 * cancelling a finished run answers 200 with its final state.
 */
@RestController
class CancelController {

    private final RunAccess access;
    private final RunCanceller canceller;
    private final JsonAnswers answers;

    CancelController(RunAccess access, RunCanceller canceller, JsonAnswers answers) {
        this.access = access;
        this.canceller = canceller;
        this.answers = answers;
    }

    @PostMapping("/api/v1/threads/{threadId}/runs/{runId}/cancel")
    public ResponseEntity<byte[]> cancel(Caller caller, @PathVariable String threadId, @PathVariable String runId) {
        RunState run = access.require(caller, threadId, runId);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("run_id", runId);
        body.put("thread_id", threadId);
        // A run whose run_end is not applied yet is still cancelled as a running one (202): its status alone would
        // answer 200 with no output, which a client would take for the result.
        if (run.ended()) {
            body.put("status", run.status().wireName());
            body.put("output", run.output());
            return answers.of(HttpStatus.OK, body);
        }
        canceller.cancel(runId);
        body.put("status", "cancelling");
        return answers.of(HttpStatus.ACCEPTED, body);
    }

}
