package io.agentrun.platform.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A worker renews its leases while the relay applies its runs' events: a run_end applied between the worker's
 * last send and its letting go of the run must not read as a lease lost (a false warning, a counted loss and a
 * stop signal to a run that already ended), while a run another worker took over must.
 */
@ExtendWith(RealInfrastructure.class)
class LeaseRenewalIT {

    private static final String WORKER = "worker-a";
    private static final Duration LEASE = Duration.ofSeconds(10);
    private static RedisConnections redis;
    private static RunOwnership ownership;

    @BeforeAll
    static void start() {
        redis = RedisConnections.connect(RealInfrastructure.redisUrl());
        ownership = new RunOwnership(redis, new StateSettings(Duration.ofDays(1), Duration.ofDays(1), Duration.ofMinutes(1),
                Duration.ofHours(1), 100, Duration.ofSeconds(30)), Clock.systemUTC(), "lease-renewal-test");
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    @Test
    void aRunEndedInTheWorkersOwnEpochIsNotLostAndOnlyTheTakenOverOneIs() {
        RunOwnership.Lease running = held("running");
        RunOwnership.Lease ended = held("completed");
        RunOwnership.Lease takenOver = new RunOwnership.Lease(newRun(Map.of("owner", "worker-b", "epoch", "2",
                "status", "running", "lease_until", "0")), 1);

        List<RunOwnership.Lease> lost = ownership.renew(List.of(running, ended, takenOver), WORKER, LEASE, Duration.ofSeconds(5));

        assertThat(lost).containsExactly(takenOver);
        assertThat(Long.parseLong(redis.sync().hget(RedisKeys.run(running.runId()), "lease_until")))
                .as("the running one renewed").isGreaterThan(System.currentTimeMillis());
        assertThat(redis.sync().hget(RedisKeys.run(ended.runId()), "lease_until")).as("the ended one untouched").isEqualTo("0");
    }

    @Test
    void aRunThisWorkerReleasedAsEndedBeforeDroppingItIsNotLostButOneHandedOnIs() {
        // Its release clears the owner; the run leaves the worker's list a moment later, and a renewal may come between.
        RunOwnership.Lease finished = held("running");
        assertThat(ownership.finish(finished.runId(), WORKER, 1, RunStatus.COMPLETED)).isTrue();
        RunOwnership.Lease handedBack = held("running");
        ownership.handBack(handedBack.runId(), WORKER, 1);
        RunOwnership.Lease endedInALaterEpoch = new RunOwnership.Lease(newRun(Map.of("owner", "", "epoch", "2",
                "status", "completed", "lease_until", "0")), 1);

        List<RunOwnership.Lease> lost = ownership.renew(List.of(finished, handedBack, endedInALaterEpoch), WORKER, LEASE,
                Duration.ofSeconds(5));

        assertThat(lost).as("only runs no longer this worker's in its epoch").containsExactlyInAnyOrder(handedBack, endedInALaterEpoch);
    }

    private static RunOwnership.Lease held(String status) {
        return new RunOwnership.Lease(newRun(Map.of("owner", WORKER, "epoch", "1", "status", status, "lease_until", "0")), 1);
    }

    private static String newRun(Map<String, String> fields) {
        String runId = "run_" + UUID.randomUUID();
        redis.sync().hset(RedisKeys.run(runId), fields);
        return runId;
    }
}
