package io.agentrun.worker.lease;

import io.agentrun.platform.schedule.PeriodicTask;
import io.agentrun.platform.store.RunOwnership;
import io.agentrun.worker.run.RunSlots;
import io.agentrun.worker.WorkerSettings;
import java.util.List;
import org.springframework.scheduling.TaskScheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews the leases of every run executing here, in one pipelined round trip per {@code lease-renew-interval}.
 * A lease Redis reports lost (another worker took the run over after this one stalled past its lease) stops
 * its run here at once. While Redis is unreachable nothing is known lost: nobody can take a run over then.
 */
public final class LeaseKeeper extends PeriodicTask {

    private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

    private final RunOwnership ownership;
    private final RunSlots slots;
    private final WorkerSettings settings;

    public LeaseKeeper(RunOwnership ownership, RunSlots slots, WorkerSettings settings, TaskScheduler timer) {
        super(timer, settings.leaseRenewInterval());
        this.ownership = ownership;
        this.slots = slots;
        this.settings = settings;
    }

    @Override
    protected void runOnce() {
        try {
            List<RunOwnership.Lease> gone = ownership.renew(slots.leases(), settings.id(), settings.leaseDuration(),
                    settings.leaseRenewInterval());
            for (RunOwnership.Lease lease : gone) {
                log.warn("lease of run {} (epoch {}) lost: another worker continues it; stopping it here",
                        lease.runId(), lease.epoch());
                slots.leaseLost(lease);
            }
        } catch (RuntimeException e) {
            log.warn("could not renew leases: {}", e.getMessage());
        }
    }

    @Override
    public int getPhase() {
        return Integer.MAX_VALUE - 1; // after the dispatcher stopped: draining runs keep their leases
    }
}
