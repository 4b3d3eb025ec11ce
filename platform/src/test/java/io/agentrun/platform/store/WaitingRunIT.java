package io.agentrun.platform.store;

import static io.agentrun.platform.store.StoreTestSettings.LEASE;
import static io.agentrun.platform.store.StoreTestSettings.STATE;
import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.command.RunCommand;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.model.testing.TestData;
import io.agentrun.model.thread.ThreadDeleted;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.RunOwnership.Claim;
import io.lettuce.core.ScanCursor;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A run waiting for a person's decision on a tool call ({@code status} {@code waiting}) in the transitions that were
 * written before that state existed and missed it: the due index's repair and a thread's deletion. Real Redis, no
 * services; the relay's apply of approval_required is written as the relay writes it.
 */
@ExtendWith(RealInfrastructure.class)
class WaitingRunIT {

    private static final String DEPLOYMENT = "waiting-run-test";
    private static final Duration DECISION_WINDOW = Duration.ofMinutes(10);
    private static final RunOwnership.SweepPolicy POLICY =
            new RunOwnership.SweepPolicy(Duration.ofSeconds(30), Duration.ofMinutes(15), 5, LEASE);
    private static final MovableClock CLOCK = new MovableClock(Instant.parse("2026-11-28T12:00:00Z"));
    private static final JsonCodec CODEC = new JsonCodec();
    private static RedisConnections redis;
    private static RunOwnership ownership;
    private static RunStore runs;
    private static ApprovalDecisions decisions;

    @BeforeAll
    static void start() {
        redis = RedisConnections.connect(RealInfrastructure.redisUrl());
        ownership = new RunOwnership(redis, STATE, CLOCK, DEPLOYMENT);
        runs = new RunStore(redis, STATE, CODEC, DEPLOYMENT);
        // no Kafka: a decision recorded here would produce the run's command, which none of these tests may do
        decisions = new ApprovalDecisions(redis, ownership, null, CODEC, CLOCK);
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    @Test
    void aWaitingRunWhoseDueEntryWasLostIsPutBackAndSweptAtItsDeadline() {
        RunCommand command = waitingForApproval("call_lost_entry");
        String index = RedisKeys.runsDue(DEPLOYMENT);
        redis.sync().zrem(index, command.runId()); // a failover kept the run's hash and lost its entry (another shard)

        repairWholeIndex();
        assertThat(redis.sync().zscore(index, command.runId())).as("a waiting run needs its sweep at the deadline too").isNotNull();

        CLOCK.advance(DECISION_WINDOW.plusSeconds(1));
        assertThat(ownership.due(1_000)).contains(command.runId());
        assertThat(ownership.sweep(command.runId(), POLICY, "sweeper")).as("denied at the deadline, it goes on")
                .isInstanceOf(RunOwnership.Sweep.Requeue.class);
        assertThat(redis.sync().hget(RedisKeys.run(command.runId()), RunStore.DECISION)).isEqualTo("deny");
    }

    @Test
    void deletingTheThreadOfAWaitingRunCancelsItAndKeepsNothingOfTheConversationNorTheCall() throws Exception {
        RunCommand command = waitingForApproval("call_deleted_thread");
        String run = RedisKeys.run(command.runId());
        redis.sync().hset(run, RunStore.OUTPUT_JSON, "{\"partial\":true}");

        deleteThread(command);

        Map<String, String> left = redis.sync().hgetall(run);
        assertThat(left).containsEntry(RunStore.STATUS, "cancelled").containsEntry(RunStore.ERROR_CODE, "thread_deleted")
                .containsEntry(RunStore.DELETED, "1")
                .doesNotContainKeys(RunStore.CHECKPOINT, RunStore.APPROVAL, RunStore.OUTPUT_JSON, RunStore.COMMAND, RunStore.OUTPUT);
        assertThat(decisions.decide(command.projectId(), command.threadId(), command.runId(), "call_deleted_thread", "approve",
                "too late", "key_test")).as("a decision after the deletion").isInstanceOf(ApprovalDecisions.Outcome.NotFound.class);
        assertThat(ownership.claim(command.runId(), "worker-b", LEASE)).as("its command, should a copy arrive")
                .isInstanceOf(Claim.Ended.class);

        deleteThread(command); // the relay applies the deletion's record again, as does a rebuild: nothing comes back
        assertThat(redis.sync().hgetall(run)).isEqualTo(left);
    }

    /** A run claimed by a worker that paused it for a decision, with its approval_required applied by the relay. */
    private static RunCommand waitingForApproval(String toolCallId) {
        RunCommand command = TestData.aRunCommand().build();
        runs.createQueued(command);
        Claim claim = ownership.claim(command.runId(), "worker-a", LEASE);
        assertThat(claim).isInstanceOf(Claim.Won.class);
        Instant deadline = CLOCK.instant().plus(DECISION_WINDOW);
        assertThat(ownership.park(command.runId(), "worker-a", ((Claim.Won) claim).epoch(), toolCallId, deadline))
                .isEqualTo(RunOwnership.Parked.PARKED);
        redis.sync().hset(RedisKeys.run(command.runId()), Map.of(RunStore.STATUS, "waiting", RunStore.APPROVAL_CALL, toolCallId,
                RunStore.APPROVAL, "{\"tool\":\"refund\",\"arguments\":{\"order\":\"A-1\"}}",
                RunStore.CHECKPOINT, "{\"messages\":[{\"role\":\"user\",\"content\":\"refund my order\"}]}",
                RunStore.APPROVAL_DEADLINE, Long.toString(deadline.toEpochMilli())));
        return command;
    }

    private static void deleteThread(RunCommand command) throws Exception {
        new ThreadDeletion(CODEC, STATE).apply(redis.async(), new ThreadDeleted(command.threadId(), command.projectId(), "key_test",
                CLOCK.instant(), List.of(command.runId()))).get(10, TimeUnit.SECONDS);
    }

    private static void repairWholeIndex() {
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            cursor = ownership.repairIndex(cursor, 1_000, repaired -> { });
        } while (!cursor.isFinished());
    }
}
