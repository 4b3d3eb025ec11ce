package io.agentrun.worker;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrun.worker.*}.
 *
 * @param id                 this worker's name in run state and logs; blank = {@code worker-<host>-<pid>}
 * @param maxInFlight        runs executing at once; the worker takes commands only while it has room. A run mostly waits
 *                           on its model's network stream, on a virtual thread, so what limits it is memory (its
 *                           history, its events in flight) and the lease renewals (one script call per held run per
 *                           renew interval, pipelined); a fixed 256 queued runs at 1,000 streams (docs/performance.md)
 * @param maxPollRecords     commands taken per poll; the worker polls only when this many runs fit, and the
 *                           broker acquires at most this many for it per fetch
 * @param pollTimeout        longest wait of one poll (a poll returns as soon as a command arrives)
 * @param runTimeout         time budget of a run; past it the run ends {@code timed_out}
 * @param deliveryTimeout    how long a run's final events may take to be acknowledged by Kafka
 * @param eventLinger        the worker's share of the latency budget (docs/architecture.md, "Batching"): how long an
 *                           event waits for others (of any run) to leave in the same produce request ({@code linger.ms})
 * @param drainTimeout       on shutdown, how long running runs may finish before they are handed back
 * @param leaseDuration      how long a claim holds a run without renewal: a crashed or hung worker's runs are
 *                           taken over about this long after its last renewal
 * @param leaseRenewInterval how often the worker renews all its leases (one pipelined round trip)
 * @param sweepInterval      how often this worker's sweeper looks for lapsed leases and lost commands
 * @param indexRepair        where the due index repair scans ({@link IndexRepairMode}): on a Redis Cluster only (the
 *                           default), always, or never
 * @param indexRepairInterval how often it scans one page (1,000 keys) of the run hashes
 * @param claimRetry         how long a command's claim is retried while Redis is unreachable before the
 *                           record goes back to the share group (inside the broker's 30 s acquisition lock)
 * @param startTimeout       a run that no worker claimed this long after it was accepted ends failed
 *                           ({@code not_started})
 * @param maxAttempts        a run claimed this often without ending ends failed ({@code attempts_exhausted})
 * @param sweepPauseAfterRedisFault after a sweep Redis failed, or a change of Redis Cluster's topology (a failover), the
 *                           sweeper decides nothing this long: owners whose renewals failed meanwhile renew first, and
 *                           the relays re-apply what a failover dropped before a takeover reads the run's state
 */
@ConfigurationProperties("agentrun.worker")
public record WorkerSettings(
        @DefaultValue("") String id,
        @DefaultValue("4096") int maxInFlight,
        @DefaultValue("16") int maxPollRecords,
        @DefaultValue("500ms") Duration pollTimeout,
        @DefaultValue("10m") Duration runTimeout,
        @DefaultValue("30s") Duration deliveryTimeout,
        @DefaultValue("5ms") Duration eventLinger,
        @DefaultValue("30s") Duration drainTimeout,
        @DefaultValue("5s") Duration leaseDuration,
        @DefaultValue("1s") Duration leaseRenewInterval,
        @DefaultValue("1s") Duration sweepInterval,
        @DefaultValue("cluster") IndexRepairMode indexRepair,
        @DefaultValue("5s") Duration indexRepairInterval,
        @DefaultValue("20s") Duration claimRetry,
        @DefaultValue("15m") Duration startTimeout,
        @DefaultValue("5") int maxAttempts,
        @DefaultValue("10s") Duration sweepPauseAfterRedisFault) {

    public WorkerSettings {
        if (maxInFlight < 1 || maxPollRecords < 1) {
            throw new IllegalArgumentException("agentrun.worker.max-in-flight and max-poll-records must be positive");
        }
        if (leaseRenewInterval.multipliedBy(2).compareTo(leaseDuration) > 0) {
            throw new IllegalArgumentException("agentrun.worker.lease-renew-interval must be at most half of lease-duration");
        }
        if (id.isBlank()) {
            id = "worker-" + hostName() + "-" + ProcessHandle.current().pid();
        }
    }

    /** Whether the due index repair runs ({@code agentrun.worker.index-repair}). */
    public boolean repairsIndex(boolean cluster) {
        return indexRepair == IndexRepairMode.ALWAYS || (indexRepair == IndexRepairMode.CLUSTER && cluster);
    }

    /**
     * Where the due index repair runs: a Redis Cluster can keep a run and lose its entry (another shard, failed over);
     * one primary cannot (it loses a suffix of its writes, and a run's entry is written before the run).
     */
    public enum IndexRepairMode {
        CLUSTER, ALWAYS, NEVER
    }

    private static String hostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            return "localhost";
        }
    }
}
