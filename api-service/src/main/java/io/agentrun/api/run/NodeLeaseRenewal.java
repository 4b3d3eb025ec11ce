package io.agentrun.api.run;

import io.agentrun.platform.schedule.PeriodicTask;
import io.agentrun.platform.store.ApiNodeLeases;
import java.time.Duration;
import org.springframework.scheduling.TaskScheduler;

/**
 * Renews this api node's {@link NodeLease} every {@link ApiNodeLeases#RENEW_EVERY} while the node runs, confirming the
 * runs whose time came with each renewal; at start it renews once before the servers take requests, and at stop it
 * confirms every run still unconfirmed.
 */
final class NodeLeaseRenewal extends PeriodicTask {

    private final NodeLease lease;

    NodeLeaseRenewal(NodeLease lease, TaskScheduler scheduler) {
        super(scheduler, ApiNodeLeases.RENEW_EVERY);
        this.lease = lease;
    }

    @Override
    protected void runOnce() {
        lease.renewAndConfirm();
    }

    /** The first renewal happens in {@link #start()} itself: the next is one interval later, no jitter. */
    @Override
    protected Duration firstRoundAfter() {
        return ApiNodeLeases.RENEW_EVERY;
    }

    @Override
    public void start() {
        lease.renew();
        super.start();
    }

    @Override
    public void stop() {
        super.stop();
        lease.confirmDue(true);
    }

    /** Renewing before the servers take requests and until they stopped (the web server's phase is higher). */
    @Override
    public int getPhase() {
        return Integer.MIN_VALUE + 1000;
    }
}
