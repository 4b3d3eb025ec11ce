package io.agentrun.platform.redis;

import io.lettuce.core.RedisReadOnlyException;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.event.command.CommandFailedEvent;
import io.lettuce.core.event.command.CommandListener;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-reads a Redis Cluster's topology when a node answers a write with {@code READONLY}. Lettuce re-reads it on
 * redirects and lost connections, not on that answer; but a primary that was replaced by its replica and came back
 * (now a replica itself) answers {@code READONLY} to every write still routed to it, until the client's next periodic
 * re-read. In {@code LiveFailoverIT} the relay's writes of one run went there for ten seconds (the periodic re-read),
 * and the run's stream waited as long. At most two re-reads a second, as for Lettuce's own triggers.
 */
final class DemotedPrimaries implements CommandListener {

    private static final Logger log = LoggerFactory.getLogger(DemotedPrimaries.class);
    private static final long AT_MOST_EVERY = RedisConnections.ADAPTIVE_REFRESH_AT_MOST_EVERY.toNanos();

    private final RedisClusterClient cluster;
    private final AtomicLong lastNanos = new AtomicLong(System.nanoTime() - AT_MOST_EVERY);

    DemotedPrimaries(RedisClusterClient cluster) {
        this.cluster = cluster;
    }

    @Override
    public void commandFailed(CommandFailedEvent event) {
        if (!readOnly(event.getCause())) {
            return;
        }
        long now = System.nanoTime();
        long last = lastNanos.get();
        if (now - last >= AT_MOST_EVERY && lastNanos.compareAndSet(last, now)) {
            log.info("a Redis node refused a write as a replica (READONLY): re-reading the cluster's topology");
            cluster.refreshPartitionsAsync().whenComplete((done, failure) -> {
                if (failure != null) {
                    log.warn("could not re-read the cluster's topology ({})", failure.getMessage());
                }
            });
        }
    }

    private static boolean readOnly(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof RedisReadOnlyException) {
                return true;
            }
        }
        return false;
    }
}
