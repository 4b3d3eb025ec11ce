package io.agentrun.worker.lease;

import io.agentrun.platform.store.RunOwnership;
import io.agentrun.platform.schedule.PeriodicTask;
import io.lettuce.core.ScanCursor;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import org.springframework.scheduling.TaskScheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts back in the due index the unsettled runs it lost. The index is one sorted set (one shard of a Redis Cluster)
 * and a run's hash is on another: a failover that drops acknowledged writes may keep the run and lose its entry, and
 * a run no sweeper looks at would wait for ever (an unconfirmed one, whose creator died, among them). One page of a
 * scan over the run hashes every {@code index-repair-interval}, continuing where the last page ended: a pass over
 * 100,000 retained runs takes 100 pages.
 *
 * <p>Only on a Redis Cluster, unless told otherwise ({@code agentrun.worker.index-repair}). One primary (with replicas) that fails over, or restarts from its append-only file,
 * loses a suffix of its writes, never a write from the middle; a run's entry is written before its hash (the api's
 * {@code ZADD}, then its {@code HSET}, on one connection), and later moves of the entry only set its time (an entry
 * whose move is lost is looked at early, and rescheduled). So such a Redis never keeps a run without its entry, and the
 * scan (one {@code HMGET} per retained run per pass) would find nothing.
 */
final class IndexRepair extends PeriodicTask {

    private static final Logger log = LoggerFactory.getLogger(IndexRepair.class);
    static final int PAGE = 1_000;

    private final RunOwnership ownership;
    private final BooleanSupplier paused;
    private final boolean enabled;
    private final LongAdder repaired = new LongAdder();
    private ScanCursor cursor = ScanCursor.INITIAL;

    /**
     * @param paused while true, nothing is put back: the sweeper's pause after a Redis fault, while relays re-apply the topic
     * @param enabled whether it scans at all (on a Redis Cluster, by default)
     */
    IndexRepair(RunOwnership ownership, Duration every, BooleanSupplier paused, boolean enabled, TaskScheduler timer) {
        super(timer, every);
        this.ownership = ownership;
        this.paused = paused;
        this.enabled = enabled;
    }

    /** Runs this worker put back in the due index. */
    long repairedCount() {
        return repaired.sum();
    }

    @Override
    protected void runOnce() {
        if (!enabled || paused.getAsBoolean()) {
            return;
        }
        try {
            ScanCursor next = ownership.repairIndex(cursor, PAGE, count -> {
                repaired.add(count);
                log.warn("{} unsettled runs were missing from the due index (lost in a failover?); put back", count);
            });
            cursor = next.isFinished() ? ScanCursor.INITIAL : next;
        } catch (RuntimeException e) {
            log.warn("due index repair failed: {}", e.getMessage());
            cursor = ScanCursor.INITIAL; // a cluster's cursor names its nodes: after a failover, start over
        }
    }
}
