package io.agentrun.api.stream;

import io.agentrun.model.json.CodecException;
import io.agentrun.model.json.JsonCodec;
import java.time.Duration;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One watcher's view of a run's events, delivered exactly once and in {@code seq} order whatever the
 * live channel does: duplicates (a relay replaying after a crash) are dropped, a gap is filled from the
 * resume buffer, and a quiet stream is checked against the buffer in case a live message was lost.
 *
 * <p>{@link #offer} is called by the pub/sub thread; everything else by the one thread serving the
 * client.
 */
public final class RunSubscription implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RunSubscription.class);

    private final String runId;
    private final JsonCodec codec;
    private final ResumeBuffer buffer;
    private final Duration gapCheckInterval;
    private final Consumer<RunSubscription> onClose;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final LinkedBlockingQueue<String> incoming = new LinkedBlockingQueue<>();
    private final TreeMap<Long, Frame> early = new TreeMap<>();
    private long expected;
    /** When the current gap was first seen (nanoTime), 0 when there is none. */
    private long gapSince;

    RunSubscription(String runId, long firstSeq, JsonCodec codec, ResumeBuffer buffer, Duration gapCheckInterval,
            Consumer<RunSubscription> onClose) {
        this.runId = runId;
        this.expected = firstSeq;
        this.codec = codec;
        this.buffer = buffer;
        this.gapCheckInterval = gapCheckInterval;
        this.onClose = onClose;
    }

    public String runId() {
        return runId;
    }

    void offer(String envelopeJson) {
        incoming.offer(envelopeJson);
    }

    /**
     * The next event in order, waiting up to {@code maxWait}.
     *
     * @return empty when nothing arrived in time (the caller may send a keepalive and ask again)
     */
    public Optional<Frame> next(Duration maxWait) throws InterruptedException {
        long deadline = System.nanoTime() + maxWait.toNanos();
        while (true) {
            Optional<Frame> ready = takeReady();
            if (ready.isPresent()) {
                return ready;
            }
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                return Optional.empty();
            }
            String json = incoming.poll(Math.min(remaining, gapCheckInterval.toNanos()), TimeUnit.NANOSECONDS);
            if (json == null) {
                fillFromBuffer(); // quiet: did the live channel lose something?
            } else {
                accept(json);
            }
        }
    }

    private void accept(String json) {
        Frame frame;
        try {
            var header = codec.peekHeader(json);
            frame = new Frame(header.seq(), header.type(), json);
        } catch (CodecException e) {
            log.warn("ignoring a malformed live message for run {}: {}", runId, e.getMessage());
            return;
        }
        if (frame.seq() < expected) {
            return; // already delivered
        }
        early.put(frame.seq(), frame);
        if (frame.seq() > expected) {
            fillFromBuffer(); // a gap: the missing events are in the buffer already (the relay writes it first)
        }
    }

    private Optional<Frame> takeReady() {
        while (!early.isEmpty() && early.firstKey() < expected) {
            early.pollFirstEntry();
        }
        if (!early.isEmpty() && early.firstKey() == expected) {
            expected++;
            return Optional.of(early.pollFirstEntry().getValue());
        }
        return Optional.empty();
    }

    private void fillFromBuffer() {
        for (Frame frame : buffer.from(runId, expected)) {
            early.putIfAbsent(frame.seq(), frame);
        }
        skipAGapThatCannotBeFilled();
    }

    /**
     * A missing event that is still not in the buffer long after later ones arrived will not come (the
     * buffer was trimmed, or the event never reached Kafka). Waiting for it would hang the stream until
     * its idle timeout, so after {@code 2 × gap-check-interval} the stream goes on without it.
     */
    private void skipAGapThatCannotBeFilled() {
        if (early.isEmpty() || early.firstKey() <= expected) {
            gapSince = 0;
            return;
        }
        long now = System.nanoTime();
        if (gapSince == 0) {
            gapSince = now;
        } else if (now - gapSince > 2 * gapCheckInterval.toNanos()) {
            log.warn("run {}: events {}..{} are in neither the live channel nor the buffer; continuing without them",
                    runId, expected, early.firstKey() - 1);
            expected = early.firstKey();
            gapSince = 0;
        }
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            onClose.accept(this);
        }
    }
}
