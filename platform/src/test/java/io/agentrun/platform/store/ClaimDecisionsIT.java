package io.agentrun.platform.store;

import static io.agentrun.platform.store.StoreTestSettings.LEASE;
import static io.agentrun.platform.store.StoreTestSettings.STATE;
import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.command.RunCommand;
import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.model.testing.TestData;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.RunOwnership.Claim;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The claim and refusal scripts' decisions, one store against real Redis (no services): who runs a run, and that a
 * run is never both refused and executed. Time is a clock the test moves, so a lease lapses without waiting.
 */
@ExtendWith(RealInfrastructure.class)
class ClaimDecisionsIT {

    private static final MovableClock CLOCK = new MovableClock(Instant.parse("2026-11-25T12:00:00Z"));
    private static RedisConnections redis;
    private static RunOwnership ownership;
    private static RunStore runs;

    @BeforeAll
    static void start() {
        redis = RedisConnections.connect(RealInfrastructure.redisUrl());
        ownership = new RunOwnership(redis, STATE, CLOCK, "claim-decisions-test");
        runs = new RunStore(redis, STATE);
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    @Test
    void oneWorkerWinsItsRepeatIsItsOwnAndOthersAreLeasedOut() {
        RunCommand command = queued();

        assertThat(ownership.claim(command.runId(), "worker-a", LEASE)).isEqualTo(new Claim.Won(1, 0));
        assertThat(ownership.claim(command.runId(), "worker-a", LEASE)).as("its reply was lost").isEqualTo(new Claim.Mine(1, 0));
        assertThat(ownership.claim(command.runId(), "worker-b", LEASE)).isInstanceOf(Claim.Leased.class);
    }

    @Test
    void afterTheLeaseLapsesTheNextWorkerTakesOverInTheNextEpochAfterWhatTheRelayApplied() {
        RunCommand command = queued();
        ownership.claim(command.runId(), "worker-a", LEASE);
        redis.sync().hset(RedisKeys.run(command.runId()), RunStore.LAST_SEQ, "4"); // the relay applied 0..4

        CLOCK.advance(LEASE.plusMillis(1));

        assertThat(ownership.claim(command.runId(), "worker-b", LEASE)).isEqualTo(new Claim.Won(2, 5));
        assertThat(ownership.claim(command.runId(), "worker-a", LEASE)).as("the old owner is out").isInstanceOf(Claim.Leased.class);
    }

    @Test
    void aRefusedRunIsNeverClaimedAndAClaimedRunIsNeverRefused() {
        RunCommand refused = queued();
        assertThat(ownership.refuse(refused.runId())).isTrue();
        assertThat(ownership.claim(refused.runId(), "worker-a", LEASE)).isInstanceOf(Claim.Ended.class);
        assertThat(runs.find(refused.runId()).orElseThrow().errorCode()).isEqualTo("not_queued");

        RunCommand claimed = queued();
        ownership.claim(claimed.runId(), "worker-a", LEASE);
        assertThat(ownership.refuse(claimed.runId())).as("the command reached a worker: the run goes on").isFalse();
    }

    @Test
    void anEndedRunIsNotClaimedAgainAndAnUnknownOneIsReportedSo() {
        RunCommand ended = queued();
        ownership.claim(ended.runId(), "worker-a", LEASE);
        redis.sync().hset(RedisKeys.run(ended.runId()), RunStore.STATUS, "completed");
        CLOCK.advance(LEASE.plusMillis(1));

        assertThat(ownership.claim(ended.runId(), "worker-b", LEASE)).isInstanceOf(Claim.Ended.class);
        assertThat(ownership.claim("run_never_recorded_" + System.nanoTime(), "worker-b", LEASE)).isInstanceOf(Claim.Unknown.class);
    }

    @Test
    void aRunWhoseCreatorLooksDeadIsAbandonedOnlyUnconfirmedAndItsCreatorThenRefusesIt() {
        RunOwnership.SweepPolicy policy = new RunOwnership.SweepPolicy(Duration.ofSeconds(30), Duration.ofMinutes(15), 5, LEASE);
        RunCommand orphan = queuedBy("api-gone");
        RunCommand confirmed = queuedBy("api-gone");
        assertThat(runs.confirmSent(confirmed.runId())).isTrue();
        RunCommand creatorAlive = queuedBy("api-alive");

        assertThat(ownership.sweep(orphan.runId(), policy, "sweeper", "api-gone"::equals)).isInstanceOf(RunOwnership.Sweep.GiveUp.class)
                .extracting(giveUp -> ((RunOwnership.Sweep.GiveUp) giveUp).code()).isEqualTo("not_queued");
        assertThat(ownership.sweep(confirmed.runId(), policy, "sweeper", "api-gone"::equals)).as("confirmed: the creator told its client")
                .isInstanceOf(RunOwnership.Sweep.Wait.class);
        assertThat(ownership.sweep(creatorAlive.runId(), policy, "sweeper", "api-gone"::equals)).isInstanceOf(RunOwnership.Sweep.Wait.class);
        assertThat(ownership.sweep(creatorAlive.runId(), policy, "sweeper", node -> false)).isInstanceOf(RunOwnership.Sweep.Wait.class);

        assertThat(runs.confirmSent(orphan.runId())).as("a late confirmation finds it abandoned").isFalse();
        assertThat(ownership.refuse(orphan.runId())).as("and its refusal counts as one").isTrue();
        assertThat(redis.sync().hget(RedisKeys.run(orphan.runId()), RunStore.OWNER)).as("left to the sweeper that ends it").isEqualTo("sweeper");
        assertThat(ownership.claim(orphan.runId(), "worker-a", LEASE)).as("its command, should it arrive").isInstanceOf(Claim.Leased.class);
        assertThat(runs.confirmSent(creatorAlive.runId())).isTrue();
        assertThat(redis.sync().hget(RedisKeys.run(creatorAlive.runId()), RunStore.SENT)).isEqualTo("1");
    }

    @Test
    void aRunWhoseCommandRedisLostGoesOnFromItsRunStartAndEndsCommandLostOnlyWithoutOne() {
        RunOwnership.SweepPolicy policy = new RunOwnership.SweepPolicy(Duration.ofSeconds(30), Duration.ofMinutes(15), 5, LEASE);
        RunCommand rebuilt = claimedThenLostItsCommand();
        RunCommand bare = claimedThenLostItsCommand();
        RunEvent runStart = new RunEvent(0, 1, rebuilt.runId(), rebuilt.threadId(), rebuilt.projectId(), rebuilt.agentId(),
                rebuilt.createdAt(), new EventData.RunStart(rebuilt.threadId(), rebuilt.runId(), rebuilt.agentId(), 1,
                        rebuilt.input(), rebuilt.metadata()));
        redis.sync().xadd(RedisKeys.runEvents(rebuilt.runId()), new io.lettuce.core.XAddArgs().id("0-1"), "e",
                new JsonCodec().encodeToString(runStart));
        CLOCK.advance(LEASE.plusSeconds(1));

        RunOwnership.Sweep goesOn = ownership.sweep(rebuilt.runId(), policy, "sweeper", node -> false);
        assertThat(goesOn).as("its events hold what was asked, as after a rebuild from the topic")
                .isInstanceOf(RunOwnership.Sweep.Requeue.class);
        RunCommand told = new JsonCodec().decodeCommand(((RunOwnership.Sweep.Requeue) goesOn).commandJson()
                .getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(told.runId()).isEqualTo(rebuilt.runId());
        assertThat(told.input()).isEqualTo(rebuilt.input());
        assertThat(ownership.sweep(bare.runId(), policy, "sweeper", node -> false)).isInstanceOf(RunOwnership.Sweep.GiveUp.class)
                .extracting(giveUp -> ((RunOwnership.Sweep.GiveUp) giveUp).code()).isEqualTo("command_lost");
    }

    /** A run a worker claimed and lost its lease on, whose hash no longer holds the api's copy of its command. */
    private static RunCommand claimedThenLostItsCommand() {
        RunCommand command = queued();
        assertThat(ownership.claim(command.runId(), "worker-a", LEASE)).isInstanceOf(Claim.Won.class);
        redis.sync().hdel(RedisKeys.run(command.runId()), RunStore.COMMAND);
        return command;
    }

    @Test
    void anIndexRepairPutsBackOnlyUnsettledRunsOfItsOwnIndexThatLostTheirEntry() {
        String index = RedisKeys.runsDue("claim-decisions-test");
        RunStore thisDeployment = new RunStore(redis, STATE, new io.agentrun.model.json.JsonCodec(), "claim-decisions-test");
        RunCommand lost = TestData.aRunCommand().build();
        RunCommand kept = TestData.aRunCommand().build();
        RunCommand ended = TestData.aRunCommand().build();
        List.of(lost, kept, ended).forEach(thisDeployment::createQueued);
        RunStore otherDeployment = new RunStore(redis, STATE, new io.agentrun.model.json.JsonCodec(), "another-deployment");
        RunCommand foreign = TestData.aRunCommand().build();
        otherDeployment.createQueued(foreign);
        redis.sync().zrem(index, lost.runId(), ended.runId());
        redis.sync().hset(RedisKeys.run(ended.runId()), RunStore.STATUS, "completed");
        redis.sync().zrem(RedisKeys.runsDue("another-deployment"), foreign.runId());
        Double keptAt = redis.sync().zscore(index, kept.runId());

        java.util.concurrent.atomic.AtomicInteger repaired = new java.util.concurrent.atomic.AtomicInteger();
        io.lettuce.core.ScanCursor cursor = io.lettuce.core.ScanCursor.INITIAL;
        do {
            cursor = ownership.repairIndex(cursor, 1_000, repaired::addAndGet);
        } while (!cursor.isFinished());

        assertThat(redis.sync().zscore(index, lost.runId())).as("put back, due now").isEqualTo((double) CLOCK.millis());
        assertThat(redis.sync().zscore(index, kept.runId())).as("an entry that is there keeps its time").isEqualTo(keptAt);
        assertThat(redis.sync().zscore(index, ended.runId())).as("an ended run needs no sweep").isNull();
        assertThat(redis.sync().zscore(index, foreign.runId())).as("another deployment's run").isNull();
        assertThat(redis.sync().zscore(RedisKeys.runsDue("another-deployment"), foreign.runId())).as("not this repair's to fix").isNull();
        assertThat(repaired.get()).isGreaterThanOrEqualTo(1);
    }

    private static RunCommand queuedBy(String creator) {
        RunCommand command = TestData.aRunCommand().build();
        runs.createQueued(command, null, false, null, creator);
        return command;
    }

    private static RunCommand queued() {
        RunCommand command = TestData.aRunCommand().build();
        runs.createQueued(command);
        return command;
    }
}
