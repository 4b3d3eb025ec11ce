package io.agentrun.api.sse;

import io.agentrun.api.live.RunSubscription;
import io.agentrun.api.live.LiveEvents;
import io.agentrun.api.caller.Caller;
import io.agentrun.api.caller.PublicSurface;
import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.api.run.LaunchedRun;
import io.agentrun.api.run.RunAccess;
import io.agentrun.api.run.IdempotentLauncher;
import io.agentrun.api.run.IfBusy;
import io.agentrun.api.run.RunRequestReader;
import io.agentrun.model.command.RunMode;
import io.agentrun.model.event.RunRef;
import io.agentrun.platform.store.RunState;
import io.agentrun.platform.observe.Tracing;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The streaming endpoints.
 * <ul>
 *   <li>{@code POST /api/v1/agents/{agent_id}/stream/threads[?thread_id=]}: a new run, streamed. Everything
 *       is validated and the command is in Kafka before the first byte.</li>
 *   <li>{@code GET /api/v1/threads/{thread_id}/runs/{run_id}/stream}: join a run, from the start or after
 *       the event named by {@code Last-Event-ID} / {@code ?after=}; a finished run replays and closes.</li>
 * </ul>
 * A client that disconnects does not cancel the run, unless it asked with {@code ?on_disconnect=cancel}.
 */
@RestController
class StreamController {

    private final RunRequestReader reader;
    private final IdempotentLauncher launcher;
    private final RunAccess access;
    private final LiveEvents live;
    private final SseForwarder forwarder;
    private final NodeDrain drain;
    private final ObservationRegistry observations;

    StreamController(RunRequestReader reader, IdempotentLauncher launcher, RunAccess access, LiveEvents live,
            SseForwarder forwarder, NodeDrain drain, ObservationRegistry observations) {
        this.observations = observations;
        this.reader = reader;
        this.launcher = launcher;
        this.access = access;
        this.live = live;
        this.forwarder = forwarder;
        this.drain = drain;
    }

    @PublicSurface
    @PostMapping("/api/v1/agents/{agentId}/stream/threads")
    public void stream(Caller caller, @PathVariable String agentId,
            @RequestParam(name = "thread_id", required = false) @Nullable String threadId,
            @RequestParam(name = "on_disconnect", required = false) @Nullable String onDisconnect,
            @RequestParam(name = "if_busy", required = false) @Nullable String ifBusy,
            @RequestHeader(name = "Idempotency-Key", required = false) @Nullable String idempotencyKey,
            @RequestHeader(name = "Last-Event-ID", required = false) @Nullable String lastEventId,
            HttpServletRequest request, HttpServletResponse response) throws InterruptedException {
        boolean cancelOnDisconnect = cancelOnDisconnect(onDisconnect);
        IfBusy policy = IfBusy.parse(ifBusy);
        refuseWhileDraining();
        var runRequest = reader.read(request);
        // A repeat of an idempotent request joins its run, from after Last-Event-ID when the client saw some of it
        long fromSeq = lastSeen(lastEventId) + 1;
        // Under the request's span (Boot's, continuing a caller's traceparent): the command's span, the worker's,
        // the relay's and this stream's are in the run's trace.
        Observation stream = Observation.createNotStarted("agentrun.stream", observations)
                .highCardinalityKeyValue(Tracing.AGENT_ID.getKey(), agentId).start();
        try (Observation.Scope scope = stream.openScope()) {
            LaunchedRun run = launcher.launch(caller, agentId, blankToNull(threadId), RunMode.STREAM, policy, runRequest,
                    idempotencyKey, fromSeq);
            stream.highCardinalityKeyValue(Tracing.RUN_ID.getKey(), run.command().runId());
            forwarder.serve(run.events(), new RunRef(run.command().threadId(), run.command().runId(),
                    run.command().projectId(), run.command().agentId()), run.waiting(), cancelOnDisconnect, response);
        } catch (RuntimeException | InterruptedException e) {
            stream.error(e);
            throw e;
        } finally {
            stream.stop();
        }
    }

    @PublicSurface
    @GetMapping("/api/v1/threads/{threadId}/runs/{runId}/stream")
    public void join(Caller caller, @PathVariable String threadId, @PathVariable String runId,
            @RequestHeader(name = "Last-Event-ID", required = false) @Nullable String lastEventId,
            @RequestParam(name = "after", required = false) @Nullable String after,
            @RequestParam(name = "on_disconnect", required = false) @Nullable String onDisconnect,
            HttpServletResponse response) throws InterruptedException {
        boolean cancelOnDisconnect = cancelOnDisconnect(onDisconnect);
        refuseWhileDraining();
        RunState state = access.require(caller, threadId, runId);
        long from = lastSeen(lastEventId != null ? lastEventId : after) + 1;
        if (state.endSeq() >= 0 && from > state.endSeq()) {
            // The client has run_end already (an EventSource reconnects by itself after a stream closes): nothing more will come.
            response.setStatus(HttpServletResponse.SC_NO_CONTENT);
            return;
        }
        RunSubscription events = live.subscribe(runId, from); // live first, then the backlog: nothing falls between
        try {
            events.catchUp();
        } catch (RuntimeException e) {
            events.close();
            throw e;
        }
        forwarder.serve(events, new RunRef(threadId, runId, state.projectId(), state.agentId()), null,
                cancelOnDisconnect, response);
    }

    private void refuseWhileDraining() {
        if (drain.isDraining()) {
            throw new ApiProblem(ErrorCode.UPSTREAM_UNAVAILABLE, "this api node is shutting down; retry on another");
        }
    }

    private static long lastSeen(@Nullable String value) {
        if (value == null || value.isBlank()) {
            return -1;
        }
        try {
            long seq = Long.parseLong(value.strip());
            if (seq < -1) {
                throw new NumberFormatException();
            }
            return seq;
        } catch (NumberFormatException e) {
            throw new ApiProblem(ErrorCode.INVALID_REQUEST, "Last-Event-ID / after must be the seq of an event (a number ≥ -1)");
        }
    }

    private static boolean cancelOnDisconnect(@Nullable String policy) {
        if (policy == null || policy.isBlank() || policy.equals("continue")) {
            return false;
        }
        if (policy.equals("cancel")) {
            return true;
        }
        throw new ApiProblem(ErrorCode.INVALID_REQUEST, "on_disconnect must be 'continue' (default) or 'cancel'");
    }

    private static @Nullable String blankToNull(@Nullable String value) {
        return value == null || value.isBlank() ? null : value;
    }
}
