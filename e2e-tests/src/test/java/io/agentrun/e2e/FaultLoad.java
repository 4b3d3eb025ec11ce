package io.agentrun.e2e;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * The load a fault suite strikes into: {@code initial} streaming runs started at once, alternating over the api
 * nodes; once half of them stream, one more every {@code every} until {@link #close()}. Each run is a
 * {@link ResumingRun}, a client that joins again until {@code run_end}.
 */
final class FaultLoad implements AutoCloseable {

    /** Streaming runs a fault suite starts at once: the load its promises are checked under. */
    static final int INITIAL_RUNS = 200;
    /** How long every run has to end once a fault is over. */
    static final Duration SETTLE = Duration.ofMinutes(3);
    private static final String WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima";

    /** Every run started so far, in start order. */
    final List<ResumingRun> runs = new CopyOnWriteArrayList<>();
    private final List<ApiClient> nodes;
    private final IntFunction<String> query;
    private final IntFunction<String> thread;
    private final Duration settle;
    private final AtomicInteger started = new AtomicInteger();
    private final ScheduledExecutorService feeder = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().factory());

    private FaultLoad(List<ApiClient> nodes, IntFunction<String> query, IntFunction<String> thread, Duration settle) {
        this.nodes = nodes;
        this.query = query;
        this.thread = thread;
        this.settle = settle;
    }

    /** A query the scripted agent answers in 13 deltas, {@code deltaMillis} apart: mid-stream when a fault strikes. */
    static String slowQuery(int deltaMillis, String tag) {
        return "/slow " + deltaMillis + " " + WORDS + " " + tag;
    }

    /** {@link #INITIAL_RUNS} at once, one more every {@code every}; each run has {@link #SETTLE} to end. */
    static FaultLoad start(List<ApiClient> nodes, Duration every, IntFunction<String> query) {
        return start(nodes, INITIAL_RUNS, every, query, SETTLE);
    }

    /** Starts the load and returns once half of the first runs stream (three events or more), feeding on from then. */
    static FaultLoad start(List<ApiClient> nodes, int initial, Duration every, IntFunction<String> query, Duration settle) {
        return start(nodes, initial, every, query, i -> null, settle);
    }

    /** @param thread the thread run {@code i} continues (one turn ended on it already), or null for a new thread */
    static FaultLoad start(List<ApiClient> nodes, int initial, Duration every, IntFunction<String> query, IntFunction<String> thread,
            Duration settle) {
        FaultLoad load = new FaultLoad(nodes, query, thread, settle);
        for (int i = 0; i < initial; i++) {
            load.startOne();
        }
        await("the first runs to stream").atMost(Duration.ofSeconds(90)).until(() ->
                load.runs.stream().filter(r -> r.events.size() >= 3).count() >= initial / 2);
        load.feeder.scheduleAtFixedRate(load::startOne, 0, every.toMillis(), TimeUnit.MILLISECONDS);
        return load;
    }

    private void startOne() {
        int i = started.getAndIncrement();
        runs.add(ResumingRun.start(nodes, i, i % nodes.size(), query.apply(i), settle, thread.apply(i)));
    }

    /** Stops starting runs; those started go on. */
    @Override
    public void close() {
        feeder.shutdownNow();
    }
}
