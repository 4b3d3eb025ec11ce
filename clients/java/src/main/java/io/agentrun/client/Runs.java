package io.agentrun.client;

import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/** Runs: streamed, one-off, background; read, wait for, cancel. Every POST carries an {@code Idempotency-Key}. */
public final class Runs {

    private final Transport transport;
    private final Duration oneOffTimeout;

    Runs(Transport transport, Duration oneOffTimeout) {
        this.transport = transport;
        this.oneOffTimeout = oneOffTimeout;
    }

    /**
     * Starts a run and streams its events ({@code POST /api/v1/agents/{agentId}/stream/threads}); returns once the
     * answer's headers arrived, so {@link RunStream#runId()} and {@link RunStream#threadId()} are known. A request
     * whose answer never arrives is sent again with the same {@code Idempotency-Key} and body: it gets the same run.
     *
     * @throws AgentrunException the api's refusal (e.g. 404 {@code agent_not_found}, 409 {@code thread_busy})
     */
    public RunStream stream(String agentId, RunRequest request) {
        return RunStream.start(transport, streamRequest(agentId, request));
    }

    HttpRequest streamRequest(String agentId, RunRequest request) {
        return transport.post(agentPath(agentId, "/stream/threads") + request.queryString(), request.body(), request.keyOrNew(),
                transport.headersTimeout()).header("Accept", "text/event-stream").build();
    }

    /** Joins a run's events after {@code afterSeq} (-1: from its start), on any api node; a finished run replays. */
    public RunStream join(String threadId, String runId, long afterSeq) {
        return RunStream.join(transport, threadId, runId, afterSeq);
    }

    /**
     * A run without a thread ({@code POST /api/v1/agents/{agentId}/run}), its result when it ends.
     *
     * @throws AgentrunException 502 {@code run_failed}, 504 {@code run_timeout}, or a refusal
     */
    public RunResult run(String agentId, RunRequest request) {
        HttpRequest post = transport.post(agentPath(agentId, "/run") + request.queryString(), request.body(),
                request.keyOrNew(), oneOffTimeout).header("Accept", "application/json").build();
        return transport.json(post, RunResult.class);
    }

    /** A background run ({@code POST /api/v1/agents/{agentId}/runs}, 202): queued, nobody watching. */
    public AcceptedRun create(String agentId, RunRequest request) {
        HttpRequest post = transport.post(agentPath(agentId, "/runs") + request.queryString(), request.body(),
                request.keyOrNew(), transport.headersTimeout()).header("Accept", "application/json").build();
        return transport.json(post, AcceptedRun.class);
    }

    /** {@code GET /api/v1/runs/{runId}}. */
    public RunInfo get(String runId) {
        return transport.json(transport.request("/api/v1/runs/" + Transport.encode(runId)).GET().build(), RunInfo.class);
    }

    /**
     * Reads the run until it ended (or {@code timeout} passed), polling with back-off (100 ms doubling to 1 s).
     *
     * @return the run as last read: ended, or still going when the timeout passed
     */
    public RunInfo wait(String runId, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long pause = 100;
        RunInfo run = get(runId);
        while (!run.status().isTerminal() && RetryPolicy.allows(deadline, Duration.ofMillis(pause))) { // waiting is not ended
            if (!RetryPolicy.pause(Duration.ofMillis(pause), transport.closing(), "for the run to end", runId)) {
                return run; // the client was closed
            }
            pause = Math.min(pause * 2, 1000);
            run = get(runId);
        }
        return run;
    }

    /**
     * {@code POST /api/v1/threads/{threadId}/runs/{runId}/approvals/{toolCallId}}: approves or denies the tool call a run
     * waits for ({@code approval_required}); the run goes on with {@code approval_decided}. Safe to retry: the same
     * decision by the same credential is answered as recorded; another one is {@code approval_already_decided}.
     *
     * @param decision {@code approve} or {@code deny}
     * @param reason   why; a denial's reason is what the model is told
     */
    public ApprovalResult decide(String threadId, String runId, String toolCallId, String decision, String reason) {
        HttpRequest post = transport.post("/api/v1/threads/" + Transport.encode(threadId) + "/runs/" + Transport.encode(runId)
                + "/approvals/" + Transport.encode(toolCallId), Map.of("decision", decision, "reason", reason),
                Transport.newIdempotencyKey(), Duration.ofSeconds(30)).build();
        return transport.json(post, ApprovalResult.class);
    }

    /** {@code POST /api/v1/threads/{threadId}/runs/{runId}/cancel}: harmless to repeat. */
    public CancelResult cancel(String threadId, String runId) {
        HttpRequest post = transport.request("/api/v1/threads/" + Transport.encode(threadId) + "/runs/" + Transport.encode(runId)
                + "/cancel").header("Idempotency-Key", Transport.newIdempotencyKey()).POST(HttpRequest.BodyPublishers.noBody()).build();
        return transport.json(post, CancelResult.class);
    }

    private static String agentPath(String agentId, String rest) {
        Objects.requireNonNull(agentId, "agentId");
        return "/api/v1/agents/" + Transport.encode(agentId) + rest;
    }
}
