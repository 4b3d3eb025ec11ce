package io.agentrun.worker.observe;

import io.agentrun.platform.kafka.ClusterAdmin;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code agentrun.worker.share_group.lag}: run commands the workers' share group has not finished with
 * (the broker's lag per partition, summed), asked at most every 10 s. Every worker reports the same group,
 * so autoscaling takes the max over workers; KEDA's Kafka scaler knows consumer groups only, so workers
 * scale on this gauge through its Prometheus scaler. -1 when the broker could not be asked.
 */
final class ShareGroupLag implements MeterBinder {

    private static final Logger log = LoggerFactory.getLogger(ShareGroupLag.class);
    private static final long TTL_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final ClusterAdmin cluster;
    private final String group;
    private volatile long value = -1;
    private volatile long askedAt = System.nanoTime() - TTL_NANOS;

    ShareGroupLag(ClusterAdmin cluster, String group) {
        this.cluster = cluster;
        this.group = group;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder("agentrun.worker.share_group.lag", this, ShareGroupLag::current)
                .description("Run commands the workers' share group has not finished with (same value on every worker)")
                .register(registry);
    }

    double current() {
        if (System.nanoTime() - askedAt >= TTL_NANOS) {
            askedAt = System.nanoTime();
            value = ask();
        }
        return value;
    }

    private long ask() {
        try {
            return cluster.shareGroupLag(group, Duration.ofSeconds(5));
        } catch (RuntimeException e) {
            log.debug("share group lag unavailable: {}", e.toString());
            return -1;
        }
    }
}
