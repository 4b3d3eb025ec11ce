package io.agentrun.api.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.infra.redis.RedisServer;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.model.command.RunCommand;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.model.testing.TestData;
import io.agentrun.platform.store.ApiNodeLeases;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.StateSettings;
import org.awaitility.Awaitility;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.junit.jupiter.api.io.TempDir;

/**
 * The api node answers a client only while its lease cannot have lapsed: within TTL - RENEW_EVERY of the last renewal
 * Redis took, counted from when it was sent. A real redis-server of its own, stopped to make renewals fail. It marks a
 * run it produced {@code sent} only once {@link NodeLease#CONFIRM_AFTER} passed with no event showing the run claimed,
 * keeps a mark Redis did not take for the next renewal, and writes every mark left when it stops.
 */
class NodeLeaseIT {

    private static final StateSettings STATE = new StateSettings(Duration.ofDays(1), Duration.ofDays(1), Duration.ofMinutes(1),
            Duration.ofHours(1), 1000, Duration.ofSeconds(30));
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

    @Test
    void marksSentOnlyTheRunsNoEventShowedClaimedOnceTheirTimeCame(@TempDir Path dir) {
        try (RedisServer server = RedisServer.start(dir); RedisConnections redis = RedisConnections.connect(server.url(), Duration.ofMillis(500))) {
            RunStore runs = new RunStore(redis, STATE);
            NodeLease lease = new NodeLease(new ApiNodeLeases(redis), runs, "api-under-test", now::get);
            String unclaimed = recorded(runs);
            String claimed = recorded(runs);
            String late = recorded(runs);
            lease.confirmLater(unclaimed, () -> false);
            lease.confirmLater(claimed, () -> true);
            now.addAndGet(NodeLease.CONFIRM_AFTER.toNanos() / 2);
            lease.confirmLater(late, () -> false);

            lease.confirmDue(false);
            assertThat(sent(redis, unclaimed)).as("before its time").isNull();
            now.addAndGet(NodeLease.CONFIRM_AFTER.toNanos() / 2);
            lease.confirmDue(false);
            assertThat(sent(redis, unclaimed)).as("unclaimed, its time came").isEqualTo("1");
            assertThat(sent(redis, claimed)).as("an event showed it claimed").isNull();
            assertThat(sent(redis, late)).as("produced later").isNull();

            new NodeLeaseRenewal(lease, new ThreadPoolTaskScheduler()).stop();
            assertThat(sent(redis, late)).as("every mark left, when the node stops").isEqualTo("1");
        }
    }

    @Test
    void aMarkRedisDidNotTakeIsWrittenWithALaterRenewal(@TempDir Path dir) {
        try (RedisServer server = RedisServer.startDurable(dir, false, "always");
                RedisConnections redis = RedisConnections.connect(server.url(), Duration.ofMillis(500))) {
            RunStore runs = new RunStore(redis, STATE);
            NodeLease lease = new NodeLease(new ApiNodeLeases(redis), runs, "api-under-test", now::get);
            String run = recorded(runs);
            lease.confirmLater(run, () -> false);
            now.addAndGet(NodeLease.CONFIRM_AFTER.toNanos());
            server.kill();

            lease.confirmDue(false); // Redis is gone: kept for later
            server.restart();
            Awaitility.await("Redis back").atMost(Duration.ofSeconds(20)).ignoreExceptions()
                    .until(() -> "PONG".equals(redis.sync().ping()));
            lease.confirmDue(false);

            assertThat(sent(redis, run)).isEqualTo("1");
        }
    }

    private static String recorded(RunStore runs) {
        RunCommand command = TestData.aRunCommand().build();
        runs.createQueued(command, null, false, "api-under-test", "api-under-test");
        return command.runId();
    }

    private static String sent(RedisConnections redis, String runId) {
        return redis.sync().hget(RedisKeys.run(runId), RunStore.SENT);
    }
}
