package io.agentrun.worker.observe;

import io.agentrun.platform.kafka.KafkaClients;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;

/**
 * {@code agentrun.worker.share_group.lag}: run commands the workers' share group has not finished with
 * (the broker's lag per partition, summed), asked at most every 10 s. Every worker reports the same group,
 * so autoscaling takes the max over workers; KEDA's Kafka scaler knows consumer groups only, so workers
 * scale on this gauge through its Prometheus scaler. -1 when the broker could not be asked.
 */
final class ShareGroupLag implements MeterBinder, DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(ShareGroupLag.class);
    private static final long TTL_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final Admin admin;
    private final String group;
    private volatile long value = -1;
    private volatile long askedAt = System.nanoTime() - TTL_NANOS;

    ShareGroupLag(KafkaClients clients) {
        this.admin = clients.admin("agentrun-share-lag-" + ProcessHandle.current().pid());
        this.group = clients.settings().workerGroup();
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
            Map<?, SharePartitionOffsetInfo> partitions = admin.listShareGroupOffsets(Map.of(group, new ListShareGroupOffsetsSpec()))
                    .partitionsToOffsetInfo(group).get(5, TimeUnit.SECONDS);
            // A partition the group has not read yet has no entry (null) and no lag to report.
            return partitions.values().stream().filter(Objects::nonNull).mapToLong(p -> p.lag().orElse(0L)).sum();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        } catch (Exception e) {
            log.debug("share group lag unavailable: {}", e.toString());
            return -1;
        }
    }

    @Override
    public void destroy() {
        admin.close();
    }
}
