package io.agentrun.api.run;

import io.agentrun.api.ApiSettings;
import io.agentrun.api.caller.Caller;
import io.agentrun.api.caller.PublicSurface;
import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.api.live.Frame;
import io.agentrun.api.live.RunSubscription;
import io.agentrun.api.problem.JsonAnswers;
import io.agentrun.model.command.RunMode;
import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.json.JsonCodec;
import jakarta.servlet.http.HttpServletRequest;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /api/v1/agents/{agent_id}/run}: a one-off run without a stored thread. Answers with the
 * final output as {@code text/plain}, or a JSON document with {@code Accept: application/json}. A failed
 * run is 502 {@code run_failed}; a run past the configured wait is 504 {@code run_timeout} and is cancelled.
 */
@RestController
class OneOffRunController {

    private static final Logger log = LoggerFactory.getLogger(OneOffRunController.class);

    private final RunRequestReader reader;
    private final IdempotentLauncher launcher;
    private final RunCanceller canceller;
    private final ApiSettings settings;
    private final JsonCodec codec;
    private final JsonAnswers answers;

    OneOffRunController(RunRequestReader reader, IdempotentLauncher launcher, RunCanceller canceller,
            ApiSettings settings, JsonCodec codec, JsonAnswers answers) {
        this.reader = reader;
        this.launcher = launcher;
        this.canceller = canceller;
        this.settings = settings;
        this.codec = codec;
        this.answers = answers;
    }

    @PublicSurface
    @PostMapping("/api/v1/agents/{agentId}/run")
    public ResponseEntity<byte[]> run(Caller caller, @PathVariable String agentId,
            @RequestHeader(name = HttpHeaders.ACCEPT, required = false) @Nullable String accept,
            @RequestHeader(name = "Idempotency-Key", required = false) @Nullable String idempotencyKey,
            HttpServletRequest request) throws InterruptedException {
        var runRequest = reader.read(request);
        boolean json = wantsJson(accept);
        LaunchedRun run = launcher.launch(caller, agentId, null, RunMode.ONE_OFF, IfBusy.REJECT, runRequest, idempotencyKey, 0);
        String runId = run.command().runId();
        Outcome outcome;
        try (RunSubscription events = run.events()) {
            outcome = awaitEnd(events, runId);
        }
        EventData.RunEnd end = outcome.end;
        switch (end.status()) {
            case COMPLETED -> {
                return json ? json(runId, agentId, end) : text(runId, end.output());
            }
            case TIMED_OUT -> throw new ApiProblem(ErrorCode.RUN_TIMEOUT, "run " + runId + " exceeded its time budget");
            case CANCELLED -> throw new ApiProblem(ErrorCode.RUN_FAILED, "run " + runId + " was cancelled");
            default -> throw new ApiProblem(ErrorCode.RUN_FAILED, "run " + runId + " failed: " + outcome.errorMessage());
        }
    }

    private Outcome awaitEnd(RunSubscription events, String runId) throws InterruptedException {
        long deadline = System.nanoTime() + settings.oneOffTimeout().toNanos();
        EventData.RunError error = null;
        while (true) {
            long remaining = deadline - System.nanoTime();
            Optional<Frame> frame = remaining > 0 ? events.next(Duration.ofNanos(remaining)) : Optional.empty();
            if (frame.isEmpty()) {
                cancelQuietly(runId);
                throw new ApiProblem(ErrorCode.RUN_TIMEOUT,
                        "run " + runId + " did not finish within " + settings.oneOffTimeout() + "; it was cancelled");
            }
            RunEvent event = codec.decodeEvent(frame.get().json());
            if (event.data() instanceof EventData.RunError e) {
                error = e;
            } else if (event.data() instanceof EventData.RunEnd end) {
                return new Outcome(end, error);
            }
        }
    }

    private void cancelQuietly(String runId) {
        try {
            canceller.cancel(runId);
        } catch (RuntimeException e) {
            // The caller still gets its 504; the run ends by its own time budget.
            log.warn("could not cancel run {} after its one-off wait: {}", runId, e.getMessage());
        }
    }

    /**
     * JSON when Accept names {@code application/json}, else text; decided before the run starts, so a bad
     * Accept is refused instead of answering a run that executed with an error.
     *
     * @throws ApiProblem {@code invalid_request} when Accept is not a list of media types, {@code not_acceptable}
     *     when it accepts neither JSON nor plain text
     */
    private static boolean wantsJson(@Nullable String accept) {
        if (accept == null || accept.isBlank()) {
            return false;
        }
        List<MediaType> types;
        try {
            types = MediaType.parseMediaTypes(accept).stream().filter(type -> type.getQualityValue() > 0).toList();
        } catch (InvalidMediaTypeException e) {
            throw new ApiProblem(ErrorCode.INVALID_REQUEST, "the Accept header is not a list of media types");
        }
        if (types.stream().anyMatch(type -> type.getType().equals("application") && type.getSubtype().equals("json"))) {
            return true;
        }
        if (types.stream().anyMatch(type -> type.includes(MediaType.TEXT_PLAIN))) {
            return false;
        }
        throw new ApiProblem(ErrorCode.NOT_ACCEPTABLE, "a run's output is application/json or text/plain; Accept allows neither");
    }

    private static ResponseEntity<byte[]> text(String runId, String output) {
        return ResponseEntity.ok()
                .header("x-run-id", runId)
                .contentType(new MediaType(MediaType.TEXT_PLAIN, StandardCharsets.UTF_8))
                .body(output.getBytes(StandardCharsets.UTF_8));
    }

    private ResponseEntity<byte[]> json(String runId, String agentId, EventData.RunEnd end) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("run_id", runId);
        body.put("agent_id", agentId);
        body.put("status", end.status().wireName());
        body.put("output", end.output());
        if (end.outputJson() != null) {
            body.put("output_json", end.outputJson());
        }
        body.put("usage", end.usage());
        body.put("duration_ms", end.durationMs());
        return ResponseEntity.ok()
                .header("x-run-id", runId)
                .contentType(MediaType.APPLICATION_JSON)
                .body(answers.bytes(body));
    }

    private record Outcome(EventData.RunEnd end, EventData.@Nullable RunError error) {
        String errorMessage() {
            return error != null ? error.message() + " (" + error.code() + ")" : "no reason given";
        }
    }
}
