package io.agentrun.bench;

import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One run as its client sees it: events in {@code seq} order (gaps count as missing, repeats as
 * duplicated), time to the first event, delivery latency of each event. Events of one run arrive on one
 * thread; {@link #awaitEnd} hands the figures to the thread that started the run. Every event counts for
 * lost and duplicated; only those received in the phase's {@link Window} count for its rates and latencies.
 */
final class RunWatch {

    /** Delivery latency of the events received in the window. */
    final Samples delivery = new Samples();
    private final CountDownLatch end = new CountDownLatch(1);
    private final Window window;
    private long startNanos = System.nanoTime();
    private long ttfeMicros = -1;
    private long firstDeliveryMicros = -1;
    private long nextSeq;
    private long events;
    private long measuredEvents;
    private boolean endedInWindow;
    private long missing;
    private long duplicated;
    private boolean failed;
    private volatile boolean ended;

    RunWatch() {
        this(Window.ALWAYS);
    }

    RunWatch(Window window) {
        this.window = window;
    }

    /** The moment the client asked for the run: time to first event counts from here. */
    void started() {
        started(System.nanoTime());
    }

    void started(long atNanos) {
        startNanos = atNanos;
    }

    void onEvent(SseEvent event) {
        onEvent(event, System.nanoTime(), nowMicros());
    }

    /**
     * @param atNanos        when it was received, on {@link System#nanoTime()} (the window's clock)
     * @param receivedMicros when it was received, wall clock: the worker stamps {@code created_at} from it
     */
    void onEvent(SseEvent event, long atNanos, long receivedMicros) {
        if (ttfeMicros < 0) {
            ttfeMicros = (atNanos - startNanos) / 1000;
        }
        if (event.seq() < nextSeq) {
            duplicated++;
            return;
        }
        missing += event.seq() - nextSeq;
        nextSeq = event.seq() + 1;
        events++;
        long deliveryMicros = Math.max(0, receivedMicros - event.createdAtMillis() * 1000);
        boolean inWindow = window.contains(atNanos);
        if (inWindow) {
            measuredEvents++;
            delivery.add(deliveryMicros);
        }
        if (firstDeliveryMicros < 0) {
            firstDeliveryMicros = deliveryMicros;
        }
        failed |= event.type().equals("error");
        if (event.isRunEnd()) {
            endedInWindow = inWindow;
            ended = true;
            end.countDown();
        }
    }

    boolean ended() {
        return ended;
    }

    boolean awaitEnd(long timeoutMillis) throws InterruptedException {
        return end.await(timeoutMillis, TimeUnit.MILLISECONDS);
    }

    long ttfeMicros() {
        return ttfeMicros;
    }

    /** Delivery latency of the run's first event: what of the time to first event is after the worker wrote it. */
    long firstDeliveryMicros() {
        return firstDeliveryMicros;
    }

    long events() {
        return events;
    }

    /** Events received in the window. */
    long measuredEvents() {
        return measuredEvents;
    }

    boolean endedInWindow() {
        return endedInWindow;
    }

    /** Its time to first event belongs to the window's figures. */
    boolean startedInWindow() {
        return window.contains(startNanos);
    }

    long missing() {
        return missing;
    }

    long duplicated() {
        return duplicated;
    }

    boolean failed() {
        return failed;
    }

    /** Wall clock in microseconds: the worker stamps {@code created_at} from the same clock (in milliseconds). */
    static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
    }
}
