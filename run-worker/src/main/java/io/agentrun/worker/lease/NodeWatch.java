package io.agentrun.worker.lease;

import io.agentrun.platform.store.ApiNodeLeases;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a sweeper whether an api node is dead: its lease key was missing at every look over at least
 * {@link ApiNodeLeases#TTL} (a sweeper looks each second at a run its creator has not confirmed). One look is not
 * enough: a Redis failover may lose the key of a live node, which puts it back within {@link ApiNodeLeases#RENEW_EVERY}.
 * A node that stalled that long (a pause, no Redis) is treated as dead too; when it wakes it asks each pending run
 * whether it was abandoned before answering its client ({@code NodeLease} and {@code RunStore.confirmSent}), so nothing
 * a client was told is ended.
 */
final class NodeWatch {

    private static final Logger log = LoggerFactory.getLogger(NodeWatch.class);

    private final ApiNodeLeases leases;
    private final LongSupplier nanoTime;
    /** Nodes seen without their key, since when (nanoTime); a node seen with it leaves. */
    private final Map<String, Long> missingSince = new ConcurrentHashMap<>();

    NodeWatch(ApiNodeLeases leases) {
        this(leases, System::nanoTime);
    }

    NodeWatch(ApiNodeLeases leases, LongSupplier nanoTime) {
        this.leases = leases;
        this.nanoTime = nanoTime;
    }

    /** @throws io.lettuce.core.RedisException when Redis cannot say (the sweep of that run fails and is retried) */
    boolean dead(String nodeId) {
        if (leases.present(nodeId)) {
            missingSince.remove(nodeId);
            return false;
        }
        long now = nanoTime.getAsLong();
        long since = missingSince.computeIfAbsent(nodeId, node -> now);
        boolean dead = now - since >= ApiNodeLeases.TTL.toNanos();
        if (dead && missingSince.size() > 1_000) {
            missingSince.clear(); // nodes come and go with every api restart; a dead one is proven again when needed
        }
        if (dead) {
            log.info("api node {} has not renewed its lease for {} s: ending the runs it did not confirm", nodeId,
                    (now - since) / 1_000_000_000L);
        }
        return dead;
    }
}
