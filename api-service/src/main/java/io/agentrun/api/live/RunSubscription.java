package io.agentrun.api.live;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One watcher's view of a run's events, delivered exactly once and in {@code seq} order whatever the
 * live channel does: duplicates (a relay replaying after a crash) are dropped, a gap is filled from the
 * {@link Backlog}, and a quiet stream is checked against the backlog in case a live message was lost —
 * the watchdog that keeps a lost {@code run_end} from leaving a stream open.
 *
 * <p>Live events arrive as this run's part of a message of the node's channel ({@link LiveEvents}): what the relay
 * applied of the run in one batch. Live events wait in a queue bounded in events: a client too slow to take them overflows it, and its stream
 * is ended (it resumes with {@code Last-Event-ID}) instead of growing this node's memory.
 *
 * <p>{@link #offer} and {@link #interrupt} are called by other threads; everything else by the one thread
 * serving the client.
 */
public final class RunSubscription implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RunSubscription.class);

    private final String runId;
    private final Backlog backlog;
    private final Duration gapCheckInterval;
    private final Consumer<RunSubscription> onClose;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final LinkedBlockingQueue<Received> incoming = new LinkedBlockingQueue<>();
    /** Events in {@link #incoming}, counted by envelope lines, bounded by {@code maxQueued}. */
    private final AtomicInteger queued = new AtomicInteger();
    private final int maxQueued;
    private volatile boolean overflowed;
    private volatile boolean interrupted;
    /** Set once any event of the run reached this node: a worker has claimed it. */
    private volatile boolean heardFrom;
    private final TreeMap<Long, Frame> early = new TreeMap<>();
    private long expected;
    private boolean backlogHasMore;
    /** The highest seq the backlog has handed this subscription: below it, it is catching up, not tailing. */
    private long backlogUpTo = -1;
    /** When the current gap was first seen (nanoTime), 0 when there is none. */
    private long gapSince;

    /** Counts events this stream took from the backlog because its live channel had not brought them (not a join's catch-up). */
    private final LongAdder fromBacklog;

    RunSubscription(String runId, long firstSeq, Backlog backlog, Duration gapCheckInterval,
            int maxQueued, Consumer<RunSubscription> onClose) {
        this(runId, firstSeq, backlog, gapCheckInterval, maxQueued, onClose, new LongAdder());
    }

    RunSubscription(String runId, long firstSeq, Backlog backlog, Duration gapCheckInterval,
            int maxQueued, Consumer<RunSubscription> onClose, LongAdder fromBacklog) {
        this.fromBacklog = fromBacklog;
        this.runId = runId;
        this.expected = firstSeq;
        this.backlog = backlog;
        this.maxQueued = maxQueued;
        this.gapCheckInterval = gapCheckInterval;
        this.onClose = onClose;
    }

    public String runId() {
        return runId;
    }

    /** Whether an event of the run has reached this node (live or from its backlog): a worker has claimed it. */
    public boolean heardFrom() {
        return heardFrom;
    }

    /** The run's events of one live message, as queued. */
    private record Received(List<Frame> frames) {
        /** Wakes the waiting thread; it holds no event. */
        static final Received WAKE_UP = new Received(List.of());
    }

    /** This run's events of one live message of this node's channel, in order. */
    void offer(List<Frame> frames) {
        heardFrom = true;
        int events = frames.size();
        int queuedNow = queued.addAndGet(events);
        // One message is taken whole when nothing waits, even when it alone holds more (a relay batch of at most
        // max-poll-records events): dropping it would leave a tailing client nothing but the backlog to read.
        if (queuedNow > maxQueued && queuedNow != events) {
            queued.addAndGet(-events);
            overflowed = true;
            return;
        }
        incoming.offer(new Received(frames));
    }

    /**
     * Live events arrived faster than the client took them and some were dropped: end the stream, let it
     * resume. Only while tailing the live channel, though: while this subscription still works through the
     * backlog (a join catching up), the dropped live events are in the backlog too, so nothing is lost and
     * the queue just starts over.
     */
    public boolean overflowed() {
        if (overflowed && (backlogHasMore || expected <= backlogUpTo)) {
            incoming.clear();
            queued.set(0);
            overflowed = false;
        }
        return overflowed;
    }

    /** Makes a waiting {@link #next} return at once (the node is draining). */
    void interrupt() {
        interrupted = true;
        incoming.offer(Received.WAKE_UP);
    }

    public boolean interrupted() {
        return interrupted;
    }

    /** Loads what already exists from the backlog: a join's events from before it subscribed. */
    public void catchUp() {
        fillFromBuffer(false);
    }

    /** The seq of the next event this subscription will deliver. */
    public long nextSeq() {
        return expected;
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
            if (backlogHasMore) {
                fillFromBuffer(false); // the last backlog read was a full chunk: read on rather than wait
                continue;
            }
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0 || interrupted || overflowed()) {
                return Optional.empty();
            }
            Received message = incoming.poll(Math.min(remaining, gapCheckInterval.toNanos()), TimeUnit.NANOSECONDS);
            if (message == null) {
                fillFromBuffer(true); // quiet: did the live channel lose something?
            } else if (message != Received.WAKE_UP) {
                queued.addAndGet(-message.frames().size());
                acceptAll(message.frames());
            }
        }
    }

    /** The events of one live message, in order. */
    private void acceptAll(List<Frame> frames) {
        for (Frame frame : frames) {
            if (frame.seq() >= expected) { // else already delivered
                early.put(frame.seq(), frame);
            }
        }
        if (!early.isEmpty() && early.firstKey() > expected) {
            fillFromBuffer(true); // a gap: the missing events are in the backlog already (the relay writes the buffer first)
        }
    }

    /** True when {@link #next} would return an event at once: the caller may hold its flush for it. */
    public boolean hasReady() {
        return early.containsKey(expected);
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

    /** @param missedLive the live channel should have brought what this reads: counted in {@link #fromBacklog} */
    private void fillFromBuffer(boolean missedLive) {
        List<Frame> frames;
        try {
            frames = backlog.from(runId, expected);
        } catch (RuntimeException e) {
            // Redis or Kafka away for a moment: the next check tries again; the stream keeps waiting, not failing.
            log.warn("run {}: could not read the backlog from seq {} ({}); retrying", runId, expected, e.getMessage());
            return;
        }
        if (!frames.isEmpty()) {
            heardFrom = true;
        }
        for (Frame frame : frames) {
            if (early.putIfAbsent(frame.seq(), frame) == null && missedLive && frame.seq() >= expected) {
                fromBacklog.increment();
            }
            backlogUpTo = Math.max(backlogUpTo, frame.seq());
        }
        backlogHasMore = frames.size() >= Backlog.CHUNK;
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
