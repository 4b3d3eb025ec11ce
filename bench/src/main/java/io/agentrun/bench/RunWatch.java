package io.agentrun.bench;

import java.time.Instant;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One run as its client sees it: events in {@code seq} order (gaps count as missing, repeats as
 * duplicated), time to the first event, delivery latency of each event. Events of one run arrive on one
 * thread; {@link #awaitEnd} hands the figures to the thread that started the run.
 */
final class RunWatch {

    final Samples delivery = new Samples();
    private final CountDownLatch end = new CountDownLatch(1);
    private long startNanos = System.nanoTime();
    private long ttfeMicros = -1;
    private long firstDeliveryMicros = -1;
    private long nextSeq;
    private long events;
    private long missing;
    private long duplicated;
    private boolean failed;
    private volatile boolean ended;

    /** The moment the client asked for the run: time to first event counts from here. */
    void started() {
        startNanos = System.nanoTime();
    }

    void onEvent(SseEvent event) {
        long receivedMicros = nowMicros();
        if (ttfeMicros < 0) {
            ttfeMicros = (System.nanoTime() - startNanos) / 1000;
        }
        if (event.seq() < nextSeq) {
            duplicated++;
            return;
        }
        missing += event.seq() - nextSeq;
        nextSeq = event.seq() + 1;
        events++;
        long deliveryMicros = Math.max(0, receivedMicros - event.createdAtMillis() * 1000);
        delivery.add(deliveryMicros);
        if (firstDeliveryMicros < 0) {
            firstDeliveryMicros = deliveryMicros;
        }
        failed |= event.type().equals("error");
        if (event.isRunEnd()) {
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
