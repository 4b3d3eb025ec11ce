package io.agentrun.worker.lease;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.ApiNodeLeases;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** An api node is dead only when its lease key was missing at every look over a whole TTL (real Redis, a test clock). */
@ExtendWith(RealInfrastructure.class)
class NodeWatchIT {

    private static final long SECOND = 1_000_000_000L;

    static RedisConnections redis;
    private final AtomicLong now = new AtomicLong(1_000 * SECOND);
    private final String node = "api-" + UUID.randomUUID();

    @BeforeAll
    static void connect() {
        redis = RedisConnections.connect(RealInfrastructure.redisUrl());
    }

    @AfterAll
    static void close() {
        redis.close();
    }

    @Test
    void aNodeWhoseKeyStaysMissingForAWholeTtlIsDead() {
        NodeWatch watch = new NodeWatch(new ApiNodeLeases(redis), now::get);

        assertThat(watch.dead(node)).as("first look without the key").isFalse();
        now.addAndGet(ApiNodeLeases.TTL.toNanos() - 1);
        assertThat(watch.dead(node)).as("just short of a TTL").isFalse();
        now.addAndGet(1);
        assertThat(watch.dead(node)).as("a whole TTL without it").isTrue();
    }

    @Test
    void aKeyLostOnceAndPutBackByTheNodeMeansItLives() {
        ApiNodeLeases leases = new ApiNodeLeases(redis);
        NodeWatch watch = new NodeWatch(leases, now::get);
        leases.renew(node);
        assertThat(watch.dead(node)).isFalse();

        redis.sync().del(RedisKeys.apiNodeAlive(node)); // a failover lost it
        assertThat(watch.dead(node)).isFalse();
        now.addAndGet(SECOND);
        leases.renew(node); // the node's next renewal
        assertThat(watch.dead(node)).isFalse();

        redis.sync().del(RedisKeys.apiNodeAlive(node));
        now.addAndGet(ApiNodeLeases.TTL.toNanos() - SECOND);
        assertThat(watch.dead(node)).as("missing again, but counted from this look, not the first loss").isFalse();
        now.addAndGet(ApiNodeLeases.TTL.toNanos());
        assertThat(watch.dead(node)).isTrue();
    }

    @Test
    void aRenewedKeyLivesForTheTtl() {
        ApiNodeLeases leases = new ApiNodeLeases(redis);
        leases.renew(node);

        long ttl = redis.sync().pttl(RedisKeys.apiNodeAlive(node));

        assertThat(ttl).isBetween(ApiNodeLeases.TTL.toMillis() - 1_000, ApiNodeLeases.TTL.toMillis());
        assertThat(leases.present(node)).isTrue();
        assertThat(leases.present(node + "-other")).isFalse();
    }
}
