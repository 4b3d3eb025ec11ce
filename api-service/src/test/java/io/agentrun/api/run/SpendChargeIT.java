package io.agentrun.api.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.agentrun.api.caller.Caller;
import io.agentrun.api.caller.SpendCaps;
import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.api.upload.IssuedFiles;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.admin.SpendCap;
import io.agentrun.model.command.RunInput;
import io.agentrun.model.command.RunMode;
import io.agentrun.model.id.Ids;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.model.naming.Topics;
import io.agentrun.model.testing.TestData;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.AgentCatalog;
import io.agentrun.platform.store.ApiNodeLeases;
import io.agentrun.platform.store.ContextStore;
import io.agentrun.platform.store.IdempotencyKeys;
import io.agentrun.platform.store.RunOwnership;
import io.agentrun.platform.store.RunStarts;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.StateSettings;
import io.agentrun.platform.store.ThreadStore;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A publishable key's run is counted against its daily spend cap by the run's start, in the same call that records it:
 * a start a check refuses (a busy thread, the cap reached) counts nothing, and a run refused after its start (here its
 * idempotency key was taken over before its command was produced) gets its count back.
 */
@ExtendWith(RealInfrastructure.class)
class SpendChargeIT {

    private static final StateSettings STATE = new StateSettings(Duration.ofDays(1), Duration.ofDays(1), Duration.ofMinutes(1),
            Duration.ofHours(1), 1000, Duration.ofSeconds(30));
    private static final JsonCodec CODEC = new JsonCodec();
    private static RedisConnections redis;

    private final String projectId = "proj-" + UUID.randomUUID();
    private final String family = "pk-family-" + UUID.randomUUID();
    private final Caller caller = new Caller(projectId, Caller.Kind.PUBLISHABLE_KEY, "widget", family, new SpendCap(2, 1_000));
    private RunLauncher launcher;
    private ThreadStore threads;

    @BeforeAll
    static void connect() {
        redis = RedisConnections.connect(RealInfrastructure.redisUrl());
    }

    @AfterAll
    static void close() {
        redis.close();
    }

    @BeforeEach
    void launcher() {
        new AgentCatalog(redis, CODEC).put(projectId, TestData.anAgent().id("assistant").build());
        threads = new ThreadStore(redis, STATE, CODEC);
        RunStore runs = new RunStore(redis, STATE);
        RunStarts starts = new RunStarts(redis, runs, threads, new IdempotencyKeys(redis, Duration.ofHours(1)), STATE);
        // Background runs only: nobody listens, so no live events; the producer is never reached by these runs.
        launcher = new RunLauncher(starts, new ContextStore(redis, CODEC), threads, runs, null, null, new SpendCaps(Clock.systemUTC()),
                new IssuedFiles(null), new RunOwnership(redis, STATE, Clock.systemUTC(), Topics.RUN_COMMANDS), null,
                Duration.ofSeconds(1), new NodeLease(new ApiNodeLeases(redis), runs, "api-spend-test"));
    }

    @Test
    void aRunRefusedAfterItsStartGetsItsCountBack() {
        String runId = Ids.newRunId();
        assertThatThrownBy(() -> launcher.launch(caller, "assistant", null, RunMode.BACKGROUND, IfBusy.REJECT, request(), runId, null,
                id -> false)).isInstanceOf(RunLauncher.ReservationLost.class);

        assertThat(spentRuns()).as("runs counted today").isEqualTo("0");
        assertThat(redis.sync().hget(RedisKeys.run(runId), "error_code")).as("the run, refused").isEqualTo("not_queued");
    }

    @Test
    void aStartRefusedByABusyThreadCountsNothingAndRecordsNothing() {
        String threadId = Ids.newThreadId();
        threads.create(threadId, projectId, "assistant", family);
        assertThat(threads.tryLock(threadId, "run_holder")).isTrue();
        String runId = Ids.newRunId();

        assertThatThrownBy(() -> launcher.launch(caller, "assistant", threadId, RunMode.BACKGROUND, IfBusy.REJECT, request(), runId, null,
                id -> true)).isInstanceOfSatisfying(ApiProblem.class, p -> assertThat(p.code()).isEqualTo(ErrorCode.THREAD_BUSY));

        assertThat(spentRuns()).as("runs counted today").isNull();
        assertThat(redis.sync().exists(RedisKeys.run(runId))).as("the run's record").isZero();
    }

    @Test
    void aStartRefusedByTheCapRecordsNothing() {
        redis.sync().hset(spendKey(), "runs", "2");
        String runId = Ids.newRunId();

        assertThatThrownBy(() -> launcher.launch(caller, "assistant", null, RunMode.BACKGROUND, IfBusy.REJECT, request(), runId, null,
                id -> true)).isInstanceOfSatisfying(ApiProblem.class, p -> assertThat(p.code()).isEqualTo(ErrorCode.SPEND_CAP_REACHED));

        assertThat(spentRuns()).isEqualTo("2");
        assertThat(redis.sync().exists(RedisKeys.run(runId))).as("the run's record").isZero();
    }

    private static RunRequest request() {
        return new RunRequest(RunInput.ofQuery("hello"), Map.of());
    }

    private String spendKey() {
        return RedisKeys.spend(family, LocalDate.now(ZoneOffset.UTC).toString());
    }

    private String spentRuns() {
        return redis.sync().hget(spendKey(), "runs");
    }
}
