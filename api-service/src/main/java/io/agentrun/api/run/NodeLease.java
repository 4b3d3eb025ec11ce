package io.agentrun.api.run;

import io.agentrun.platform.store.ApiNodeLeases;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * This api node's lease ({@link ApiNodeLeases}): renewed every second while the node runs. A sweeper ends a run this
 * node recorded but had not confirmed once the lease is gone, so before telling a client a run was accepted the node
 * checks whether its lease can have lapsed: not while the last renewal Redis acknowledged was sent less than
 * {@code TTL - RENEW_EVERY} ago (the key lives at least {@code TTL} from the send). A node that stalled longer (a
 * long pause, Redis out of reach) asks the run's hash instead ({@code RunStore.confirmSent}).
 */
final class NodeLease implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(NodeLease.class);
    private static final long ANSWERABLE_NANOS = ApiNodeLeases.TTL.minus(ApiNodeLeases.RENEW_EVERY).toNanos();

    private final ApiNodeLeases leases;
    private final String nodeId;
    private final LongSupplier nanoTime;
    /** nanoTime when the last acknowledged renewal was sent; 0: none yet. */
    private volatile long renewedFrom;
    private @Nullable ScheduledExecutorService timer;

    NodeLease(ApiNodeLeases leases, String nodeId) {
        this(leases, nodeId, System::nanoTime);
    }

    NodeLease(ApiNodeLeases leases, String nodeId, LongSupplier nanoTime) {
        this.leases = leases;
        this.nodeId = nodeId;
        this.nanoTime = nanoTime;
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

    /** Whether this node may tell a client a run it recorded was accepted: its lease cannot have lapsed yet. */
    boolean held() {
        long from = renewedFrom;
        return from != 0 && nanoTime.getAsLong() - from < ANSWERABLE_NANOS;
    }

    @Override
    public void start() {
        renew();
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("node-lease").daemon().factory());
        long every = ApiNodeLeases.RENEW_EVERY.toMillis();
        scheduler.scheduleWithFixedDelay(this::renew, every, every, TimeUnit.MILLISECONDS);
        timer = scheduler;
    }

    @Override
    public void stop() {
        if (timer != null) {
            timer.shutdownNow();
            timer = null;
        }
    }

    @Override
    public boolean isRunning() {
        return timer != null;
    }

    /** Renewing before the servers take requests and until they stopped (the web server's phase is higher). */
    @Override
    public int getPhase() {
        return Integer.MIN_VALUE + 1000;
    }
}
