package io.agentrun.state.apply;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.id.Ids;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.RunLibrary;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The run library's {@code apply_thread_event} on its own, against a real redis-server: a thread's history, lock and hand-over as the
 * relay applies a run's run_start, message_final and run_end, each with the arguments {@link EventApplier} sends.
 */
@ExtendWith(RealInfrastructure.class)
class ThreadEventScriptIT {

    private static final String RETENTION_MS = "3600000";
    private static final String LOCK_TTL_MS = "60000";
    @AutoClose
    static RedisConnections redis;

    private String threadId;
    private long offset;

    @BeforeAll
    static void connect() {
        redis = RedisConnections.connect(RealInfrastructure.redisUrl());
    }

    @BeforeEach
    void newThread() {
        threadId = Ids.newThreadId();
        offset = 100;
    }

    @Test
    void aRunsQuestionAndAnswerEnterTheHistoryTogetherAndItsEndFreesTheLock() {
        String run = lockedRun();

        assertThat(apply("run_start", run, 0, "{\"role\":\"user\",\"content\":\"hi\"}", 1)).containsExactly(1L, "");
        assertThat(history()).as("the question waits for its answer").isEmpty();
        apply("message_final", run, 3, "{\"role\":\"assistant\",\"content\":\"hello\"}", 0);
        apply("run_end", run, 4, "", 0);

        assertThat(history()).containsExactly("{\"role\":\"user\",\"content\":\"hi\"}", "{\"role\":\"assistant\",\"content\":\"hello\"}");
        assertThat(redis.sync().exists(RedisKeys.threadLock(threadId))).isZero();
    }

    @Test
    void aRejectedAnswerIsNotKeptAndTheOneAfterItIs() {
        String run = lockedRun();
        apply("run_start", run, 0, "{\"role\":\"user\",\"content\":\"json please\"}", 1);

        assertThat(apply("message_final", run, 2, "", 0)).as("applied, and nothing stored").containsExactly(1L, "");
        assertThat(history()).isEmpty();
        apply("message_final", run, 4, "{\"role\":\"assistant\",\"content\":\"{}\"}", 0);
        apply("run_end", run, 5, "", 0);

        assertThat(history()).containsExactly("{\"role\":\"user\",\"content\":\"json please\"}", "{\"role\":\"assistant\",\"content\":\"{}\"}");
    }

    @Test
    void aRunThatFailsLeavesNoDanglingQuestion() {
        String run = lockedRun();
        apply("run_start", run, 0, "{\"role\":\"user\",\"content\":\"hi\"}", 1);
        apply("run_end", run, 2, "", 0);

        assertThat(history()).isEmpty();
    }

    @Test
    void aRecordReadAgainChangesNothing() {
        String run = lockedRun();
        apply("run_start", run, 0, "{\"role\":\"user\",\"content\":\"hi\"}", 1);
        apply("message_final", run, 3, "{\"role\":\"assistant\",\"content\":\"hello\"}", 0);

        assertThat(applyAt(offset, "message_final", run, 3, "{\"role\":\"assistant\",\"content\":\"hello\"}", 0))
                .as("the same offset again").containsExactly(0L, "");
        assertThat(applyAt(offset + 50, "message_final", run, 3, "{\"role\":\"assistant\",\"content\":\"hello\"}", 0))
                .as("the same run and seq written again, at a later offset").containsExactly(0L, "");
        assertThat(history()).hasSize(2);
    }

    @Test
    void aLaterAttemptStartsTheHistoryOverFromWhereTheRunBegan() {
        String run = lockedRun();
        apply("run_start", run, 0, "{\"role\":\"user\",\"content\":\"hi\"}", 1);
        apply("message_final", run, 3, "{\"role\":\"assistant\",\"content\":\"first attempt\"}", 0);

        apply("run_start", run, 4, "{\"role\":\"user\",\"content\":\"hi\"}", 2);
        apply("message_final", run, 7, "{\"role\":\"assistant\",\"content\":\"second attempt\"}", 0);
        apply("run_end", run, 8, "", 0);

        assertThat(history()).containsExactly("{\"role\":\"user\",\"content\":\"hi\"}", "{\"role\":\"assistant\",\"content\":\"second attempt\"}");
    }

    @Test
    void theEndOfARunHandsTheLockToTheFirstRunWaiting() {
        String run = lockedRun();
        String waiting = Ids.newRunId();
        redis.sync().rpush(RedisKeys.threadWaiting(threadId), waiting);
        apply("run_start", run, 0, "{\"role\":\"user\",\"content\":\"hi\"}", 1);

        assertThat(apply("run_end", run, 2, "", 0)).containsExactly(1L, waiting);
        assertThat(redis.sync().get(RedisKeys.threadLock(threadId))).isEqualTo(waiting);
        assertThat(redis.sync().hget(RedisKeys.thread(threadId), "active_run")).isEqualTo(waiting);
    }

    @Test
    void aDeletedThreadTakesNothingMore() {
        String run = lockedRun();
        redis.sync().set(RedisKeys.threadDeleted(threadId), "1");

        assertThat(apply("run_start", run, 0, "{\"role\":\"user\",\"content\":\"hi\"}", 1)).containsExactly(0L, "");
        assertThat(redis.sync().exists(RedisKeys.thread(threadId))).isZero();
    }

    /** A new run holding the thread's lock, as the api leaves it. */
    private String lockedRun() {
        String run = Ids.newRunId();
        redis.sync().set(RedisKeys.threadLock(threadId), run);
        return run;
    }

    private List<Object> apply(String type, String runId, long seq, String message, int attempt) {
        return applyAt(offset++, type, runId, seq, message, attempt);
    }

    /** The library's call as {@code EventApplier} makes it (partition 0), with one event: {applied 1 | 0, handed to}. */
    private List<Object> applyAt(long at, String type, String runId, long seq, String message, int attempt) {
        List<Object> reply = RunLibrary.APPLY_THREAD_EVENTS.runList(redis,
                new String[] {RedisKeys.thread(threadId), RedisKeys.threadMessages(threadId), RedisKeys.threadLock(threadId),
                        RedisKeys.threadRuns(threadId), RedisKeys.threadDeleted(threadId), RedisKeys.threadWaiting(threadId)},
                runId, "0", RETENTION_MS, LOCK_TTL_MS, "demo", "assistant",
                type, Long.toString(at), Long.toString(seq), "2026-11-26T10:00:00Z", "1764151200000", Integer.toString(attempt),
                message, type.equals("run_start") ? "{}" : "");
        return List.of(((List<?>) reply.get(0)).get(0), reply.get(1));
    }

    private List<String> history() {
        return redis.sync().lrange(RedisKeys.threadMessages(threadId), 0, -1);
    }
}
