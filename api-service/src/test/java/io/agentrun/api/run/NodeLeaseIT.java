package io.agentrun.api.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.infra.redis.RedisServer;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.ApiNodeLeases;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The api node answers a client only while its lease cannot have lapsed: within TTL - RENEW_EVERY of the last renewal
 * Redis took, counted from when it was sent. A real redis-server of its own, stopped to make renewals fail.
 */
class NodeLeaseIT {

    private final AtomicLong now = new AtomicLong(5_000_000_000L);

    @Test
    void heldUntilALapseIsPossibleAndNotWhileRenewalsFail(@TempDir Path dir) {
        try (RedisServer server = RedisServer.start(dir); RedisConnections redis = RedisConnections.connect(server.url(), Duration.ofMillis(500))) {
            NodeLease lease = new NodeLease(new ApiNodeLeases(redis), null, "api-under-test", now::get);
            assertThat(lease.held()).as("never renewed").isFalse();

            assertThat(lease.renew()).isTrue();
            assertThat(lease.held()).isTrue();
            now.addAndGet(ApiNodeLeases.TTL.minus(ApiNodeLeases.RENEW_EVERY).toNanos() - 1);
            assertThat(lease.held()).as("just inside TTL - RENEW_EVERY").isTrue();
            now.addAndGet(1);
            assertThat(lease.held()).as("the key may lapse within a RENEW_EVERY").isFalse();

            assertThat(lease.renew()).isTrue();
            assertThat(lease.held()).isTrue();
            server.kill();
            now.addAndGet(ApiNodeLeases.RENEW_EVERY.toNanos());
            assertThat(lease.renew()).as("Redis is gone").isFalse();
            assertThat(lease.held()).as("the last renewal still counts").isTrue();
            now.addAndGet(ApiNodeLeases.TTL.toNanos());
            assertThat(lease.renew()).isFalse();
            assertThat(lease.held()).isFalse();
        }
    }
}
