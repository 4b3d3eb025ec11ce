package io.agentrun.api.stream;

import io.agentrun.api.auth.Caller;
import io.agentrun.api.run.ApiSettings;
import io.agentrun.api.run.LaunchedRun;
import io.agentrun.api.run.RunLauncher;
import io.agentrun.api.run.RunRequestReader;
import io.agentrun.model.command.RunMode;
import io.agentrun.model.json.JsonCodec;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /api/v1/agents/{agent_id}/stream/threads[?thread_id=]}: a run streamed as server-sent
 * events. Everything is validated and the command is in Kafka before the first byte; from then on
 * failures arrive as an {@code error} event and a {@code run_end}. The response ends after run_end.
 * A client that disconnects does not cancel the run.
 */
@RestController
public class StreamController {

    private static final Logger log = LoggerFactory.getLogger(StreamController.class);
    static final String THREAD_HEADER = "x-thread-id";
    static final String RUN_HEADER = "x-run-id";

    private final RunRequestReader reader;
    private final RunLauncher launcher;
    private final ApiSettings settings;
    private final JsonCodec codec;

    public StreamController(RunRequestReader reader, RunLauncher launcher, ApiSettings settings, JsonCodec codec) {
        this.reader = reader;
        this.launcher = launcher;
        this.settings = settings;
        this.codec = codec;
    }

    @PostMapping("/api/v1/agents/{agentId}/stream/threads")
    public void stream(Caller caller, @PathVariable String agentId,
            @RequestParam(name = "thread_id", required = false) @Nullable String threadId,
            HttpServletRequest request, HttpServletResponse response) throws InterruptedException {
        var runRequest = reader.read(request);
        LaunchedRun run = launcher.launch(caller, agentId, blankToNull(threadId), RunMode.STREAM, runRequest);
        response.setHeader(THREAD_HEADER, run.command().threadId());
        response.setHeader(RUN_HEADER, run.command().runId());
        try (RunSubscription events = run.events()) {
            forward(events, SseWriter.open(response), run);
        } catch (IOException clientGone) {
            log.debug("client left the stream of run {}; the run goes on", run.command().runId());
        }
    }

    private void forward(RunSubscription events, SseWriter sse, LaunchedRun run) throws IOException, InterruptedException {
        long lastEvent = System.nanoTime();
        try {
            while (true) {
                Optional<Frame> frame = events.next(settings.keepaliveInterval());
                if (frame.isPresent()) {
                    sse.event(frame.get());
                    if (frame.get().isRunEnd()) {
                        return;
                    }
                    lastEvent = System.nanoTime();
                } else if (System.nanoTime() - lastEvent > settings.streamIdleTimeout().toNanos()) {
                    endWithError(sse, run, "no event from the run for " + settings.streamIdleTimeout() + "; it may still finish");
                    return;
                } else {
                    sse.keepalive();
                }
            }
        } catch (RuntimeException e) {
            log.error("stream of run {} broke", run.command().runId(), e);
            endWithError(sse, run, "the stream failed on the server; the run may still finish");
        }
    }

    /** Stream-level failure after headers: an unnumbered error event, then an unnumbered run_end. */
    private void endWithError(SseWriter sse, LaunchedRun run, String message) throws IOException {
        sse.unnumbered("error", envelope(run, "error",
                Map.of("code", "upstream_unavailable", "message", message, "retryable", true)));
        sse.unnumbered("run_end", envelope(run, "run_end",
                Map.of("status", "failed", "output", "", "usage", Map.of("input_tokens", 0, "output_tokens", 0), "duration_ms", 0)));
    }

    private String envelope(LaunchedRun run, String type, Map<String, Object> data) {
        Map<String, Object> event = new LinkedHashMap<>();
        event.put("type", type);
        event.put("run_id", run.command().runId());
        event.put("thread_id", run.command().threadId());
        event.put("project_id", run.command().projectId());
        event.put("agent_id", run.command().agentId());
        event.put("created_at", Instant.now().toString());
        event.put("data", data);
        return codec.write(event);
    }

    private static @Nullable String blankToNull(@Nullable String value) {
        return value == null || value.isBlank() ? null : value;
    }
}
