package io.agentrun.api.sse;

import io.agentrun.api.live.Frame;
import io.agentrun.api.live.RunSubscription;
import io.agentrun.api.observe.StreamTelemetry;
import io.agentrun.api.ApiSettings;
import io.agentrun.api.run.LaunchedRun;
import io.agentrun.api.run.RunCanceller;
import io.agentrun.model.event.RunRef;
import io.agentrun.model.event.StreamNotice;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.observe.LogContext;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves one SSE response from a run subscription until run_end: events as they come, keepalives while
 * idle. Failures of the stream itself — the node draining, a client too slow, no event for too long, an
 * error on this node — end it with an unnumbered {@code error} event (and, when the run is lost to this
 * node, an unnumbered {@code run_end}), so Last-Event-ID keeps pointing at the run's last real event.
 */
final class SseForwarder {

    private static final Logger log = LoggerFactory.getLogger(SseForwarder.class);
    static final String THREAD_HEADER = "x-thread-id";
    static final String RUN_HEADER = "x-run-id";

    private final ApiSettings settings;
    private final NodeDrain drain;
    private final RunCanceller canceller;
    private final JsonCodec codec;
    private final StreamTelemetry telemetry;

    SseForwarder(ApiSettings settings, NodeDrain drain, RunCanceller canceller, JsonCodec codec, StreamTelemetry telemetry) {
        this.telemetry = telemetry;
        this.settings = settings;
        this.drain = drain;
        this.canceller = canceller;
        this.codec = codec;
    }

    /** The run a stream is about, for headers and stream-level events. */

    /**
     * Sends headers, then the events, then closes; returns when the stream ended.
     *
     * @param cancelOnDisconnect cancel the run when the client goes away ({@code ?on_disconnect=cancel})
     */
    public void serve(RunSubscription events, RunRef run, LaunchedRun.@Nullable Waiting waiting, boolean cancelOnDisconnect,
            HttpServletResponse response) throws InterruptedException {
        long began = System.nanoTime();
        if (run.threadId() != null) {
            response.setHeader(THREAD_HEADER, run.threadId());
        }
        response.setHeader(RUN_HEADER, run.runId());
        try (events; var context = LogContext.of(run.runId(), run.threadId(), run.projectId())) {
            SseWriter sse = SseWriter.open(response);
            if (waiting != null) {
                // Unnumbered: the run's own events start at seq 0 when it gets the thread.
                write(sse, run.waiting(waiting.behind(), waiting.place()));
            }
            var delivery = telemetry.opened(run.runId());
            try {
                forward(events, sse, run, began);
            } finally {
                telemetry.closed(delivery);
            }
        } catch (IOException clientGone) {
            if (cancelOnDisconnect) {
                log.info("client left the stream of run {}; cancelling it as asked", run.runId());
                canceller.cancel(run.runId());
            } else {
                log.debug("client left the stream of run {}; the run goes on", run.runId());
            }
        }
    }

    private void forward(RunSubscription events, SseWriter sse, RunRef run, long began) throws IOException, InterruptedException {
        long lastEvent = System.nanoTime();
        boolean first = true;
        try {
            while (true) {
                if (drain.isDraining() || events.interrupted()) {
                    write(sse, run.error("node_draining",
                            "this api node is shutting down; join the run again with Last-Event-ID"));
                    return;
                }
                if (events.overflowed()) {
                    write(sse, run.error("slow_consumer",
                            "events arrived faster than this connection took them; join the run again with Last-Event-ID"));
                    return;
                }
                Optional<Frame> frame = events.next(settings.keepaliveInterval());
                if (frame.isPresent()) {
                    var write = telemetry.writing(frame.get().traceparent());
                    sse.event(frame.get(), frame.get().isRunEnd() || !events.hasReady());
                    write.end();
                    telemetry.delivered(frame.get().json());
                    if (first) {
                        telemetry.firstEvent(run.agentId(), began);
                        first = false;
                    }
                    if (frame.get().isRunEnd()) {
                        return;
                    }
                    lastEvent = System.nanoTime();
                } else if (System.nanoTime() - lastEvent > settings.streamIdleTimeout().toNanos()) {
                    endRun(sse, run, "no event from the run for " + settings.streamIdleTimeout() + "; it may still finish");
                    return;
                } else if (!events.interrupted() && !events.overflowed()) {
                    sse.keepalive();
                }
            }
        } catch (RuntimeException e) {
            log.error("stream of run {} broke", run.runId(), e);
            endRun(sse, run, "the stream failed on the server; join the run again with Last-Event-ID");
        }
    }

    /** This node lost the run: an unnumbered error, then an unnumbered run_end. */
    private void endRun(SseWriter sse, RunRef run, String message) throws IOException {
        write(sse, run.error("upstream_unavailable", message));
        write(sse, run.lost());
    }

    private void write(SseWriter sse, StreamNotice notice) throws IOException {
        sse.unnumbered(notice.type(), codec.encode(notice));
    }
}
