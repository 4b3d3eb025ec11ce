package io.agentrun.e2e;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.core.ConditionTimeoutException;

/**
 * One streaming run driven the way a careful client drives it through faults: {@code POST} a new run on one
 * api node; when the response is a stream (accepted) read it, and whenever the connection ends before
 * {@code run_end}, join again with {@code Last-Event-ID} on the api nodes in turn until {@code run_end}
 * arrives or the deadline passes. Runs on its own virtual thread; {@link #done} completes when it gave up
 * or got {@code run_end}.
 */
final class ResumingRun {

    enum Outcome {
        /** The POST was answered with SSE headers: the run must reach run_end. */
        ACCEPTED,
        /** The POST was answered with an error status: the run must never execute. */
        REFUSED,
        /** The POST got no answer at all (transport failure or timeout): neither promise applies. */
        UNANSWERED
    }

    final int index;
    final int node;
    final String query;
    /** The thread the run continues (its second turn), or null: a new thread (the first turn). */
    final String continuedThread;
    volatile Outcome outcome;
    volatile int status = -1;
    volatile String runId;
    volatile String threadId;
    /** The body of a refusal, or what broke an unanswered POST. */
    volatile String refusal;
    final long postedNanos = System.nanoTime();
    volatile long answeredNanos = -1;
    volatile long runEndNanos = -1;
    /** Every event received, over all connections, in arrival order. */
    final List<SseEvent> events = new CopyOnWriteArrayList<>();
    /** When each of {@link #events} arrived ({@code System.nanoTime()}). */
    final List<Long> arrivals = new CopyOnWriteArrayList<>();
    /** Connections after the first (joins), and why those that did not yield a stream failed. */
    final AtomicInteger joins = new AtomicInteger();
    final AtomicInteger broken = new AtomicInteger();
    final List<String> joinFailures = new CopyOnWriteArrayList<>();
    final CompletableFuture<Void> done = new CompletableFuture<>();

    private final List<ApiClient> nodes;
    private final Duration deadline;
    private volatile InputStream open;
    private volatile boolean abandoned;

    private ResumingRun(List<ApiClient> nodes, int index, int node, String query, Duration deadline, String continuedThread) {
        this.nodes = nodes;
        this.index = index;
        this.node = node;
        this.query = query;
        this.deadline = deadline;
        this.continuedThread = continuedThread;
    }

    /** Which user turn of its thread the run is: the scripted agent numbers its answers by it. */
    int turn() {
        return continuedThread == null ? 1 : 2;
    }

    /** Starts the client on a virtual thread; {@code deadline} bounds how long it keeps joining. */
    static ResumingRun start(List<ApiClient> nodes, int index, int node, String query, Duration deadline) {
        return start(nodes, index, node, query, deadline, null);
    }

    /** @param continuedThread a thread whose one turn so far ended: this run is its second; null for a new thread */
    static ResumingRun start(List<ApiClient> nodes, int index, int node, String query, Duration deadline, String continuedThread) {
        ResumingRun run = new ResumingRun(nodes, index, node, query, deadline, continuedThread);
        Thread.ofVirtual().name("run-client-" + index).start(() -> {
            try {
                run.drive();
            } catch (RuntimeException | Error e) {
                run.joinFailures.add("client failed: " + e);
            } finally {
                run.done.complete(null);
            }
        });
        return run;
    }

    private void drive() {
        HttpResponse<InputStream> response;
        try {
            response = nodes.get(node).openStream("assistant", continuedThread, ApiClient.body(query));
        } catch (RuntimeException e) {
            refusal = String.valueOf(e.getCause() == null ? e : e.getCause());
            outcome = Outcome.UNANSWERED;
            return;
        }
        answeredNanos = System.nanoTime();
        status = response.statusCode();
        runId = response.headers().firstValue("x-run-id").orElse(null);
        threadId = response.headers().firstValue("x-thread-id").orElse(null);
        if (status != 200 || !response.headers().firstValue("content-type").orElse("").startsWith("text/event-stream")) {
            outcome = Outcome.REFUSED;
            try (InputStream in = response.body()) {
                refusal = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                refusal = "(body unreadable: " + e + ")";
            }
            return;
        }
        outcome = Outcome.ACCEPTED;
        read(response.body());
        if (hasRunEnd()) {
            return;
        }
        AtomicInteger next = new AtomicInteger(node + 1);
        try {
            await().atMost(deadline).pollInSameThread().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(500))
                    .until(() -> abandoned || joinOnce(nodes.get(next.getAndIncrement() % nodes.size())));
        } catch (ConditionTimeoutException e) {
            joinFailures.add("gave up joining after " + deadline);
        }
    }

    /** One join on {@code client} from the last event seen, read to its end; true once run_end is here. */
    private boolean joinOnce(ApiClient client) {
        joins.incrementAndGet();
        try {
            HttpResponse<InputStream> response = client.openJoin(threadId, runId, lastId());
            if (response.statusCode() != 200) {
                try (InputStream in = response.body()) {
                    joinFailures.add(response.statusCode() + " " + new String(in.readAllBytes(), StandardCharsets.UTF_8));
                }
                return false;
            }
            read(response.body());
        } catch (IOException | RuntimeException e) {
            joinFailures.add(String.valueOf(e.getCause() == null ? e : e.getCause()));
        }
        return hasRunEnd();
    }

    private void read(InputStream in) {
        open = in;
        try (in) {
            ApiClient.readUntil(in, event -> {
                events.add(event);
                arrivals.add(System.nanoTime());
                if (event.id() != null && "run_end".equals(event.event())) {
                    runEndNanos = System.nanoTime();
                }
                return true;
            });
        } catch (IOException e) {
            broken.incrementAndGet();
        } finally {
            open = null;
        }
    }

    /**
     * The longest wait for an event after {@code fault} (from the fault to the first event, then between events),
     * in nanoseconds; 0 for a run that was not streaming at the fault.
     */
    long longestGapAfter(long fault) {
        if (arrivals.isEmpty() || arrivals.getFirst() > fault || (hasRunEnd() && runEndNanos < fault)) {
            return 0;
        }
        long previous = fault;
        long longest = 0;
        for (long arrival : arrivals) {
            if (arrival > fault) {
                longest = Math.max(longest, arrival - previous);
                previous = arrival;
            }
        }
        return longest;
    }

    boolean hasRunEnd() {
        return runEndNanos >= 0;
    }

    /** The id of the last numbered event received: where a join continues. */
    String lastId() {
        for (int i = events.size() - 1; i >= 0; i--) {
            if (events.get(i).id() != null) {
                return events.get(i).id();
            }
        }
        return null;
    }

    ClientView view() {
        ClientView view = new ClientView();
        view.add(events);
        return view;
    }

    /** Stops waiting: closes the stream being read, so the client's thread ends. */
    void abandon() {
        abandoned = true;
        InputStream in = open;
        if (in != null) {
            try {
                in.close();
            } catch (IOException e) {
                // closing to unblock a reader; nothing to do
            }
        }
    }

    @Override
    public String toString() {
        return "client #" + index + " (node " + node + ", " + outcome + " " + status + ", run " + runId + ", thread " + threadId
                + ", " + events.size() + " events, last id " + lastId() + ", joins " + joins + ", broken " + broken
                + (joinFailures.isEmpty() ? "" : ", join failures " + joinFailures.subList(Math.max(0, joinFailures.size() - 3), joinFailures.size()))
                + (refusal == null ? "" : ", refusal " + refusal) + ")";
    }
}
