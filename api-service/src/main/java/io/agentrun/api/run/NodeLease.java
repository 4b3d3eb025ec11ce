package io.agentrun.api.run;

import io.agentrun.platform.store.ApiNodeLeases;
import io.agentrun.platform.store.RunStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This api node's lease ({@link ApiNodeLeases}): renewed every second while the node runs, and with it the
 * confirmations of the runs it produced ({@link #confirmLater}), by {@link NodeLeaseRenewal}. A sweeper ends a run this
 * node recorded but had not confirmed once the lease is gone, so before telling a client a run was accepted the node
 * checks whether its lease can have lapsed: not while the last renewal Redis acknowledged was sent less than
 * {@code TTL - RENEW_EVERY} ago (the key lives at least {@code TTL} from the send). A node that stalled longer (a
 * long pause, Redis out of reach) asks the run's hash instead ({@code RunStore.confirmSent}).
 *
 * <p>A run's command is confirmed ({@code sent}) only when no event has shown it claimed {@link #CONFIRM_AFTER} after it
 * was produced: a claim supersedes the mark (a claimed run is never abandoned), and nearly every run is claimed within
 * milliseconds, so its start costs one Redis call. The marks still due go in one round trip with the next renewal, and
 * all of them when the node stops. Should the node die within that time, a run still unclaimed when the sweepers find
 * the node gone ends {@code not_queued}, as a run the node never confirmed; its client's stream ended with the node.
 */
final class NodeLease {

    private static final Logger log = LoggerFactory.getLogger(NodeLease.class);
    private static final long ANSWERABLE_NANOS = ApiNodeLeases.TTL.minus(ApiNodeLeases.RENEW_EVERY).toNanos();
    /** How long after its command was acknowledged a run no event showed claimed is confirmed in Redis. */
    static final Duration CONFIRM_AFTER = Duration.ofSeconds(2);

    /** A run produced by this node, not yet confirmed; {@code claimed} says whether an event of it arrived. */
    private record Unconfirmed(String runId, long producedAtNanos, BooleanSupplier claimed) {
    }

    private final ApiNodeLeases leases;
    private final @Nullable RunStore runs;
    private final ConcurrentLinkedQueue<Unconfirmed> unconfirmed = new ConcurrentLinkedQueue<>();
    private final String nodeId;
    private final LongSupplier nanoTime;
    /** nanoTime when the last acknowledged renewal was sent; 0: none yet. */
    private volatile long renewedFrom;

    NodeLease(ApiNodeLeases leases, @Nullable RunStore runs, String nodeId) {
        this(leases, runs, nodeId, System::nanoTime);
    }

    NodeLease(ApiNodeLeases leases, @Nullable RunStore runs, String nodeId, LongSupplier nanoTime) {
        this.leases = leases;
        this.runs = runs;
        this.nodeId = nodeId;
        this.nanoTime = nanoTime;
    }

    /** The node whose lease this is: the creator a run it records names. */
    String nodeId() {
        return nodeId;
    }

    /** Renews the lease now; false (logged) when Redis did not take it. */
    boolean renew() {
        long sent = nanoTime.getAsLong();
        try {
            leases.renew(nodeId);
            renewedFrom = sent == 0 ? 1 : sent;
            return true;
        } catch (RuntimeException e) {
            log.warn("api node {}: lease not renewed ({}); once it may have lapsed, each run is confirmed in Redis before its client is answered", nodeId, e.getMessage());
            return false;
        }
    }

    /** Renews the lease, then confirms the runs whose time came (only once Redis took the renewal). */
    void renewAndConfirm() {
        if (renew()) {
            confirmDue(false);
        }
    }

    /**
     * Confirms {@code runId}'s command in Redis {@link #CONFIRM_AFTER} from now unless {@code claimed} says by then that
     * an event of the run arrived.
     */
    void confirmLater(String runId, BooleanSupplier claimed) {
        unconfirmed.add(new Unconfirmed(runId, nanoTime.getAsLong(), claimed));
    }

    /** Confirms the runs due (every one when {@code all}) that no event showed claimed, in one round trip. */
    void confirmDue(boolean all) {
        long now = nanoTime.getAsLong();
        List<String> due = new ArrayList<>();
        for (Unconfirmed next = unconfirmed.peek(); next != null && (all || now - next.producedAtNanos() >= CONFIRM_AFTER.toNanos());
                next = unconfirmed.peek()) {
            unconfirmed.poll();
            if (!next.claimed().getAsBoolean()) {
                due.add(next.runId());
            }
        }
        if (due.isEmpty() || runs == null) {
            return;
        }
        try {
            for (String abandoned : runs.confirmSentAll(due)) {
                log.warn("run {}: a sweeper found this node dead before it confirmed the run, which ends not_queued", abandoned);
            }
        } catch (RuntimeException e) {
            log.warn("api node {}: {} runs not confirmed yet ({}); trying again with the next renewal", nodeId, due.size(), e.getMessage());
            due.forEach(runId -> unconfirmed.add(new Unconfirmed(runId, now - CONFIRM_AFTER.toNanos(), () -> false)));
        }
    }

    /** Whether this node may tell a client a run it recorded was accepted: its lease cannot have lapsed yet. */
    boolean held() {
        long from = renewedFrom;
        return from != 0 && nanoTime.getAsLong() - from < ANSWERABLE_NANOS;
    }
}
