package io.agentrun.client;

import io.agentrun.model.event.EventData;
import io.agentrun.model.event.EventType;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.json.CodecException;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * The events of one run, in order, each once, ending after {@code run_end}, whatever happens to the connection: when
 * it breaks (an api node killed, a proxy's reset, a stream that ends without {@code run_end}) the stream joins the run
 * again on {@code GET /api/v1/threads/{t}/runs/{r}/stream} with {@code Last-Event-ID} = the last seq it yielded, with
 * exponential back-off and jitter, for at most the client's retry deadline per outage; events it yielded already are
 * skipped. Events without an SSE {@code id:} are {@link Notice}s and never move {@code Last-Event-ID}.
 *
 * <p>Iterate it once, from one thread (or subscribe to {@link #publisher()} once). {@link #close()} from any thread
 * ends it and its connection; closing does not cancel the run.
 */
public final class RunStream implements Iterable<RunEvent>, AutoCloseable {

    private final Transport transport;
    private final String threadId;
    private final String runId;
    private final AtomicInteger attempts;
    private final AtomicInteger joins = new AtomicInteger();
    private final AtomicInteger joinRequests = new AtomicInteger();
    private final List<Notice> notices = new CopyOnWriteArrayList<>();
    private volatile Consumer<Notice> onNotice = notice -> { };
    private volatile boolean closed;
    /** Completes on {@link #close()}: a rejoin's back-off waits for it besides its time. */
    private final CompletableFuture<Void> closing = new CompletableFuture<>();
    private volatile @Nullable InputStream body;
    private @Nullable SseParser parser;
    private volatile long lastSeq;
    private boolean ended;
    private boolean iterated;
    private @Nullable RunEvent lookahead;
    /** The current outage: when the stream must give up joining again (0: no outage), and its join attempts. */
    private long outageDeadline;
    private int outageAttempts;

    private RunStream(Transport transport, HttpResponse<InputStream> response, String threadId, String runId, long lastSeq,
            AtomicInteger attempts) {
        this.transport = transport;
        this.threadId = threadId;
        this.runId = runId;
        this.lastSeq = lastSeq;
        this.attempts = attempts;
        connect(response);
    }

    /** Sends the stream POST (retrying what is safe with its Idempotency-Key) and opens the stream on its answer. */
    static RunStream start(Transport transport, HttpRequest post) {
        AtomicInteger attempts = new AtomicInteger();
        HttpResponse<InputStream> response = transport.send(post, attempts, transport.retry().deadlineFromNow());
        String thread = header(response, "x-thread-id");
        String run = header(response, "x-run-id");
        return new RunStream(transport, response, thread, run, -1, attempts);
    }

    /** Joins a run's stream after {@code afterSeq} (-1: from the start). */
    static RunStream join(Transport transport, String threadId, String runId, long afterSeq) {
        AtomicInteger attempts = new AtomicInteger();
        HttpResponse<InputStream> response = transport.send(joinRequest(transport, threadId, runId, afterSeq), attempts,
                transport.retry().deadlineFromNow());
        return new RunStream(transport, response, threadId, runId, afterSeq, attempts);
    }

    /** The run, known before the first event ({@code x-run-id}). */
    public String runId() {
        return runId;
    }

    /** The thread, known before the first event ({@code x-thread-id}). */
    public String threadId() {
        return threadId;
    }

    /** The seq of the last event yielded, -1 before the first. */
    public long lastSeq() {
        return lastSeq;
    }

    /** Requests sent to open the stream (1 unless a lost answer, a 503, a 409 or a 429 made the SDK send it again). */
    public int attempts() {
        return attempts.get();
    }

    /** Times the stream joined the run again after its connection broke. */
    public int joins() {
        return joins.get();
    }

    /** Join requests sent, including those that failed and were retried. */
    public int joinRequests() {
        return joinRequests.get();
    }

    /** The notices seen so far, in order. */
    public List<Notice> notices() {
        return List.copyOf(notices);
    }

    /** Called, on the reading thread, for each notice as it arrives (e.g. {@code run_waiting} with the place in line). */
    public RunStream onNotice(Consumer<Notice> listener) {
        this.onNotice = listener;
        return this;
    }

    /** The events; call once. */
    @Override
    public synchronized Iterator<RunEvent> iterator() {
        if (iterated) {
            throw new IllegalStateException("a RunStream is iterated once");
        }
        iterated = true;
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return peek() != null;
            }

            @Override
            public RunEvent next() {
                RunEvent event = peek();
                if (event == null) {
                    throw new NoSuchElementException("the stream ended");
                }
                lookahead = null;
                return event;
            }
        };
    }

    /**
     * The events as a {@link Flow.Publisher} for one subscriber, read on a virtual thread as the subscriber asks
     * for them; cancelling the subscription closes the stream. Use it instead of {@link #iterator()}, not with it.
     */
    public Flow.Publisher<RunEvent> publisher() {
        return new StreamPublisher(this);
    }

    /** Ends the stream and its connection (not the run). */
    @Override
    public void close() {
        closed = true;
        closing.complete(null);
        closeConnection();
    }

    private synchronized @Nullable RunEvent peek() {
        if (lookahead == null) {
            lookahead = fetch();
        }
        return lookahead;
    }

    /** The next new run event, joining again as often as needed; null after {@code run_end} or {@link #close()}. */
    private @Nullable RunEvent fetch() {
        while (!ended && !closed) {
            SseMessage message = read();
            if (closed) {
                return null;
            }
            if (message == null) {
                rejoin();
            } else if (message.id() == null) {
                notice(message, null);
            } else if (seq(message) > lastSeq + 1) {
                rejoin(); // a seq skipped: joined again after the last one yielded, as after a break (and as the TypeScript SDK)
            } else {
                RunEvent event = accept(message);
                if (event != null) {
                    return event;
                }
            }
        }
        finish();
        return null;
    }

    /**
     * Reads the answer to its end before closing it, so the connection goes back to the client's pool: closed early
     * it is dropped, and the next call pays a new TCP connection (about 1 ms here, measured by {@code TtfeHarness}).
     * The api ends the answer right after {@code run_end}; anything longer than a few frames is not waited for.
     */
    private void finish() {
        InputStream in = body;
        if (ended && in != null && !closed) {
            try {
                byte[] rest = new byte[1024];
                for (int read = 0, n; read < 64 * 1024 && (n = in.read(rest)) >= 0; read += n) {
                    // the chunked answer's last bytes
                }
            } catch (IOException e) {
                // the connection broke after run_end: nothing was missed
            }
        }
        closeConnection();
    }

    /** The next message of the connection, or null when it ended or broke. */
    private @Nullable SseMessage read() {
        try {
            return parser == null ? null : parser.next();
        } catch (IOException e) {
            return null; // a broken connection: join again
        }
    }

    /** The run event of a numbered message, or null when it was yielded already (or is a type this SDK does not know). */
    private @Nullable RunEvent accept(SseMessage message) {
        long seq = seq(message);
        if (seq <= lastSeq) {
            return null;
        }
        if (!known(message.event())) {
            lastSeq = seq;
            notice(message, seq);
            return null;
        }
        RunEvent event = decode(message);
        lastSeq = seq;
        outageDeadline = 0;
        outageAttempts = 0;
        ended = event.data() instanceof EventData.RunEnd;
        return event;
    }

    private RunEvent decode(SseMessage message) {
        try {
            return Transport.CODEC.decodeEvent(message.data());
        } catch (CodecException e) {
            throw AgentrunException.local("invalid_response", "event " + message.id() + " of the stream could not be read", runId, e);
        }
    }

    private long seq(SseMessage message) {
        try {
            return Long.parseLong(message.id());
        } catch (NumberFormatException e) {
            throw AgentrunException.local("invalid_response", "an event id is not a seq", runId, e);
        }
    }

    private static boolean known(String type) {
        try {
            EventType.fromWireName(type);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private void notice(SseMessage message, @Nullable Long seq) {
        JsonNode envelope = Transport.CODEC.mapper().readTree(message.data());
        Notice notice = new Notice(message.event(), seq, envelope);
        notices.add(notice);
        onNotice.accept(notice);
    }

    /**
     * Joins the run again after the last event yielded. The first try of an outage goes at once (a killed node's
     * runs move to the others within milliseconds); later ones wait the back-off. Throws {@code stream_lost} once
     * the outage outlasts the deadline, or the api's answer when it is not one to retry (e.g. 404: the thread was
     * deleted).
     */
    private void rejoin() {
        closeConnection();
        if (outageDeadline == 0) {
            outageDeadline = transport.retry().deadlineFromNow();
        }
        if (outageAttempts++ > 0) {
            Duration wait = transport.retry().backoff(outageAttempts - 1);
            if (!RetryPolicy.allows(outageDeadline, wait)) {
                throw lost(null);
            }
            RetryPolicy.pause(wait, CompletableFuture.anyOf(closing, transport.closing()), "to join the run again", runId);
        }
        if (closed) {
            return;
        }
        try {
            connect(transport.send(joinRequest(transport, threadId, runId, lastSeq), joinRequests, outageDeadline));
            joins.incrementAndGet();
        } catch (AgentrunException e) {
            if (!e.isRetryable()) {
                throw e;
            }
            throw lost(e);
        }
    }

    private AgentrunException lost(@Nullable Throwable cause) {
        return AgentrunException.local("stream_lost", "the stream could not be joined again after seq " + lastSeq, runId, cause);
    }

    private void connect(HttpResponse<InputStream> response) {
        InputStream in = transport.idleWatch().watch(response.body());
        body = in;
        parser = new SseParser(in);
        if (closed) {
            closeConnection();
        }
    }

    private void closeConnection() {
        InputStream in = body;
        body = null;
        if (in != null) {
            try {
                in.close();
            } catch (IOException e) {
                // the connection is gone either way
            }
        }
    }

    static HttpRequest joinRequest(Transport transport, String threadId, String runId, long afterSeq) {
        HttpRequest.Builder request = transport.request("/api/v1/threads/" + Transport.encode(threadId) + "/runs/"
                + Transport.encode(runId) + "/stream").header("Accept", "text/event-stream").GET();
        if (afterSeq >= 0) {
            request.header("Last-Event-ID", Long.toString(afterSeq));
        }
        return request.build();
    }

    private static String header(HttpResponse<InputStream> response, String name) {
        return response.headers().firstValue(name).orElseThrow(() -> AgentrunException.local("invalid_response",
                "the stream's answer has no " + name + " header", null, null));
    }
}
