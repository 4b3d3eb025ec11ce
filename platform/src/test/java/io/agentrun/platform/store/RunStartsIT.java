package io.agentrun.platform.store;

import static io.agentrun.platform.store.StoreTestSettings.STATE;
import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.infra.redis.RedisServer;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.command.RunCommand;
import io.agentrun.model.id.Ids;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.model.testing.TestData;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.RunStarts.ThreadPlan;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A run's start ({@link RunStarts}) on a single primary, where it is one call, and on a Redis Cluster, where its keys
 * live in different slots and it takes its steps one by one: each outcome comes out the same, and nothing is written
 * by a start a check refuses (no run, no reserved key, no counted spend, no thread lock or place in line). On a private
 * redis-server, {@code MONITOR} shows one command from the client per start, whatever the plan.
 */
@ExtendWith(RealInfrastructure.class)
class RunStartsIT {

    private static final JsonCodec CODEC = new JsonCodec();
    private static final String DEPLOYMENT = "run-starts-test";
    private static RedisConnections primary;
    private static RedisConnections cluster;

    @BeforeAll
    static void connect() {
        primary = RedisConnections.connect(RealInfrastructure.redisUrl());
        cluster = RedisConnections.connectCluster(RealInfrastructure.redisCluster().url());
    }

    @AfterAll
    static void close() {
        primary.close();
        cluster.close();
    }

    static Stream<Arguments> redis() {
        return Stream.of(Arguments.of("single primary", primary), Arguments.of("cluster", cluster));
    }

    /** One project with an agent, the stores over one Redis, and starts of runs in it. */
    private record Fixture(RedisConnections redis, String projectId, RunStarts starts, ThreadStore threads) {

        static Fixture on(RedisConnections redis) {
            return on(redis, STATE);
        }

        static Fixture on(RedisConnections redis, StateSettings settings) {
            String projectId = "starts-" + UUID.randomUUID();
            new AgentCatalog(redis, CODEC).put(projectId, TestData.anAgent().id("assistant").build());
            ThreadStore threads = new ThreadStore(redis, settings, CODEC);
            RunStore runs = new RunStore(redis, settings, CODEC, DEPLOYMENT);
            return new Fixture(redis, projectId, new RunStarts(redis, runs, threads, new IdempotencyKeys(redis, Duration.ofHours(1)),
                    settings), threads);
        }

        /** Starts a run created at {@code createdMs}; returns its id. */
        String startAt(long createdMs, ThreadPlan plan) {
            RunCommand c = command(plan == ThreadPlan.NONE ? null : Ids.newThreadId());
            RunCommand command = new RunCommand(c.runId(), c.threadId(), c.projectId(), c.agentId(), c.mode(), c.input(), c.metadata(),
                    java.time.Instant.ofEpochMilli(createdMs));
            assertThat(start(command, plan)).isInstanceOf(RunStarts.Started.class);
            return command.runId();
        }

        RunCommand command(@Nullable String threadId) {
            var builder = TestData.aRunCommand().project(projectId);
            return (threadId == null ? builder.oneOff() : builder.thread(threadId)).build();
        }

        RunStarts.Outcome start(RunCommand command, ThreadPlan plan) {
            return start(command, plan, null, null, false, null);
        }

        RunStarts.Outcome start(RunCommand command, ThreadPlan plan, RunStarts.@Nullable Reservation reservation,
                RunStarts.@Nullable SpendCharge spend, boolean limited, @Nullable String family) {
            return starts.start(new RunStarts.Start(command, plan, family, limited, Map.of("from", "test"), reservation, spend,
                    "api-watcher", "api-creator"));
        }

        /** A thread of this project whose lock another run holds. */
        String busyThread(String holder) {
            String threadId = Ids.newThreadId();
            threads.create(threadId, projectId, "assistant", "family-a");
            assertThat(threads.tryLock(threadId, holder)).isTrue();
            return threadId;
        }

        Map<String, String> run(String runId) {
            return redis.sync().hgetall(RedisKeys.run(runId));
        }

        void assertNothingOf(String runId, String threadId) {
            assertThat(run(runId)).as("the run's record").isEmpty();
            assertThat(redis.sync().zscore(RedisKeys.runsDue(DEPLOYMENT), runId)).as("its due entry").isNull();
            if (threadId != null) {
                assertThat(redis.sync().lrange(RedisKeys.threadWaiting(threadId), 0, -1)).as("its place in line").doesNotContain(runId);
                assertThat(redis.sync().zscore(RedisKeys.threadRuns(threadId), runId)).as("the thread's runs").isNull();
            }
        }
    }

    @ParameterizedTest(name = "{0}", autoCloseArguments = false)
    @MethodSource("redis")
    void aNewThreadIsCreatedLockedForTheRunAndTheRunRecordedWithItsDueEntry(String where, RedisConnections redis) {
        Fixture f = Fixture.on(redis);
        RunCommand command = f.command(Ids.newThreadId());

        assertThat(f.start(command, ThreadPlan.NEW)).isInstanceOf(RunStarts.Started.class);

        assertThat(f.run(command.runId())).containsEntry("status", "queued").containsEntry("creator", "api-creator")
                .containsEntry("node", "api-watcher").containsEntry("thread_id", command.threadId()).doesNotContainKey("waiting");
        assertThat(redis.sync().zscore(RedisKeys.runsDue(DEPLOYMENT), command.runId())).as("due entry").isNotNull();
        assertThat(f.threads().lockHolder(command.threadId())).contains(command.runId());
        assertThat(f.threads().find(command.threadId())).get().extracting(ThreadInfo::projectId).isEqualTo(f.projectId());
        assertThat(redis.sync().hget(RedisKeys.thread(command.threadId()), "active_run")).isEqualTo(command.runId());
        assertThat(redis.sync().pttl(RedisKeys.thread(command.threadId()))).as("thread retention").isPositive();
    }

    @ParameterizedTest(name = "{0}", autoCloseArguments = false)
    @MethodSource("redis")
    void aOneOffRunHasNoThread(String where, RedisConnections redis) {
        Fixture f = Fixture.on(redis);
        RunCommand command = f.command(null);

        assertThat(f.start(command, ThreadPlan.NONE)).isInstanceOf(RunStarts.Started.class);

        assertThat(f.run(command.runId())).containsEntry("status", "queued").doesNotContainKey("thread_id");
    }

    @ParameterizedTest(name = "{0}", autoCloseArguments = false)
    @MethodSource("redis")
    void aBusyThreadRefusesARejectingStartAndQueuesTheOthers(String where, RedisConnections redis) {
        Fixture f = Fixture.on(redis);
        String threadId = f.busyThread("run_holder");
        RunCommand rejected = f.command(threadId);
        RunCommand queued = f.command(threadId);
        RunCommand interrupting = f.command(threadId);

        assertThat(f.start(rejected, ThreadPlan.REJECT)).isEqualTo(new RunStarts.Busy("run_holder"));
        f.assertNothingOf(rejected.runId(), threadId);
        assertThat(f.start(queued, ThreadPlan.ENQUEUE)).isEqualTo(new RunStarts.Waiting("run_holder", 1));
        assertThat(f.start(interrupting, ThreadPlan.INTERRUPT)).isEqualTo(new RunStarts.Waiting("run_holder", 1));

        assertThat(redis.sync().lrange(RedisKeys.threadWaiting(threadId), 0, -1)).containsExactly(interrupting.runId(), queued.runId());
        assertThat(f.run(queued.runId())).containsEntry("waiting", "1").containsEntry("status", "queued");
        assertThat(redis.sync().hget(RedisKeys.thread(threadId), "has_waiting")).isEqualTo("1");
        assertThat(f.threads().lockHolder(threadId)).contains("run_holder");
    }

    @ParameterizedTest(name = "{0}", autoCloseArguments = false)
    @MethodSource("redis")
    void aFreeThreadIsTakenWhateverTheStartWouldDoWereItBusy(String where, RedisConnections redis) {
        Fixture f = Fixture.on(redis);
        for (ThreadPlan plan : List.of(ThreadPlan.REJECT, ThreadPlan.ENQUEUE, ThreadPlan.INTERRUPT)) {
            String threadId = Ids.newThreadId();
            f.threads().create(threadId, f.projectId(), "assistant");
            RunCommand command = f.command(threadId);

            assertThat(f.start(command, plan)).as(plan.name()).isInstanceOf(RunStarts.Started.class);

            assertThat(f.threads().lockHolder(threadId)).as(plan.name()).contains(command.runId());
            assertThat(f.run(command.runId())).as(plan.name()).doesNotContainKey("waiting");
        }
    }

    @ParameterizedTest(name = "{0}", autoCloseArguments = false)
    @MethodSource("redis")
    void aMissingAgentAForeignOrHiddenThreadAndAnotherAgentsThreadAreRefusedWritingNothing(String where, RedisConnections redis) {
        Fixture f = Fixture.on(redis);
        RunCommand noAgent = TestData.aRunCommand().project(f.projectId()).agent("nobody").thread(Ids.newThreadId()).build();
        assertThat(f.start(noAgent, ThreadPlan.NEW)).isInstanceOf(RunStarts.NoAgent.class);
        f.assertNothingOf(noAgent.runId(), noAgent.threadId());
        assertThat(f.threads().find(noAgent.threadId())).as("no thread created").isEmpty();

        String missing = Ids.newThreadId();
        RunCommand onMissing = f.command(missing);
        assertThat(f.start(onMissing, ThreadPlan.ENQUEUE)).isInstanceOf(RunStarts.NoThread.class);
        f.assertNothingOf(onMissing.runId(), missing);

        String foreign = Ids.newThreadId();
        f.threads().create(foreign, "another-project", "assistant");
        RunCommand onForeign = f.command(foreign);
        assertThat(f.start(onForeign, ThreadPlan.REJECT)).isInstanceOf(RunStarts.NoThread.class);
        f.assertNothingOf(onForeign.runId(), foreign);

        String othersFamily = f.busyThread("run_holder"); // key family "family-a"
        RunCommand hidden = f.command(othersFamily);
        assertThat(f.start(hidden, ThreadPlan.ENQUEUE, null, null, true, "family-b")).isInstanceOf(RunStarts.NoThread.class);
        f.assertNothingOf(hidden.runId(), othersFamily);
        RunCommand ownFamily = f.command(othersFamily);
        assertThat(f.start(ownFamily, ThreadPlan.ENQUEUE, null, null, true, "family-a")).isInstanceOf(RunStarts.Waiting.class);

        String helper = Ids.newThreadId();
        f.threads().create(helper, f.projectId(), "helper");
        RunCommand onOther = f.command(helper);
        assertThat(f.start(onOther, ThreadPlan.REJECT)).isEqualTo(new RunStarts.OtherAgent("helper"));
        f.assertNothingOf(onOther.runId(), helper);
    }

    @ParameterizedTest(name = "{0}", autoCloseArguments = false)
    @MethodSource("redis")
    void anIdempotencyKeyIsReservedByTheStartThatRecordsTheRunAndNamesItToTheNext(String where, RedisConnections redis) {
        Fixture f = Fixture.on(redis);
        String digest = "digest-" + UUID.randomUUID();
        String busy = f.busyThread("run_holder");
        RunCommand refused = f.command(busy);

        assertThat(f.start(refused, ThreadPlan.REJECT, new RunStarts.Reservation(digest, "fp-1"), null, false, null))
                .isInstanceOf(RunStarts.Busy.class);
        assertThat(redis.sync().exists(RedisKeys.idempotency(digest))).as("a refused start's key").isZero();

        RunCommand first = f.command(Ids.newThreadId());
        assertThat(f.start(first, ThreadPlan.NEW, new RunStarts.Reservation(digest, "fp-1"), null, false, null))
                .isInstanceOf(RunStarts.Started.class);
        RunCommand repeat = f.command(Ids.newThreadId());
        RunStarts.Outcome held = f.start(repeat, ThreadPlan.NEW, new RunStarts.Reservation(digest, "fp-2"), null, false, null);

        assertThat(held).isInstanceOfSatisfying(RunStarts.KeyHeld.class, h -> {
            assertThat(h.held().runId()).isEqualTo(first.runId());
            assertThat(h.held().fingerprint()).isEqualTo("fp-1");
            assertThat(h.held().createdMs()).isPositive();
        });
        f.assertNothingOf(repeat.runId(), repeat.threadId());
        assertThat(f.threads().find(repeat.threadId())).as("no thread for the repeat").isEmpty();
    }

    @ParameterizedTest(name = "{0}", autoCloseArguments = false)
    @MethodSource("redis")
    void theSpendCapCountsStartedRunsOnlyAndRefusesOnceReached(String where, RedisConnections redis) {
        Fixture f = Fixture.on(redis);
        RunStarts.SpendCharge spend = new RunStarts.SpendCharge("family-" + UUID.randomUUID(), "2026-11-28", 1, 1_000, Duration.ofDays(2));
        String busy = f.busyThread("run_holder");

        assertThat(f.start(f.command(busy), ThreadPlan.REJECT, null, spend, false, null)).isInstanceOf(RunStarts.Busy.class);
        assertThat(redis.sync().hget(spend.key(), "runs")).as("a refused start's count").isIn(null, "0");
        assertThat(f.start(f.command(Ids.newThreadId()), ThreadPlan.NEW, null, spend, false, null)).isInstanceOf(RunStarts.Started.class);
        assertThat(redis.sync().hget(spend.key(), "runs")).isEqualTo("1");
        RunCommand over = f.command(Ids.newThreadId());
        assertThat(f.start(over, ThreadPlan.NEW, null, spend, false, null)).isInstanceOf(RunStarts.SpendCapReached.class);
        f.assertNothingOf(over.runId(), over.threadId());
        assertThat(redis.sync().hget(spend.key(), "runs")).isEqualTo("1");
    }

    /** What a client sends, as {@code MONITOR} shows it: its commands, not what a function ran inside. */
    @ParameterizedTest(name = "{0}", autoCloseArguments = false)
    @MethodSource("redis")
    void aStartListsTheRunInItsProjectAndNowAndThenTrimsTheIndexToTheRetentionAndTheCap(String where, RedisConnections redis) {
        StateSettings capped = new StateSettings(Duration.ofDays(1), Duration.ofDays(1), Duration.ofMinutes(1), Duration.ofHours(1),
                100, Duration.ofSeconds(30), 3);
        Fixture f = Fixture.on(redis, capped);
        String index = RedisKeys.projectRuns(f.projectId());
        long trimAt = (System.currentTimeMillis() / 64 + 1) * 64; // a multiple of 64: a start then trims
        redis.sync().zadd(index, (double) trimAt - Duration.ofDays(2).toMillis(), "run_past_retention");
        List<String> started = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            started.add(f.startAt(trimAt - 64 + i, i % 2 == 0 ? ThreadPlan.NONE : ThreadPlan.NEW));
        }
        assertThat(redis.sync().zrange(index, 0, -1)).as("no trim yet: each start listed, nothing dropped")
                .containsExactly("run_past_retention", started.get(0), started.get(1), started.get(2), started.get(3));
        assertThat(redis.sync().zscore(index, started.get(0))).isEqualTo((double) trimAt - 63);

        started.add(f.startAt(trimAt, ThreadPlan.NEW));
        assertThat(redis.sync().zrange(index, 0, -1)).as("past the retention and beyond the newest 3: gone")
                .containsExactly(started.get(2), started.get(3), started.get(4));
        ProjectRuns read = new ProjectRuns(redis, capped, java.time.Clock.fixed(java.time.Instant.ofEpochMilli(trimAt),
                java.time.ZoneOffset.UTC));
        assertThat(read.before(f.projectId(), -1, Long.MAX_VALUE, "", 2)).extracting(io.lettuce.core.ScoredValue::getValue)
                .containsExactly(started.get(4), started.get(3));
        assertThat(read.before(f.projectId(), -1, trimAt - 60, started.get(3), 5)).extracting(io.lettuce.core.ScoredValue::getValue)
                .as("after a cursor: older ones only").containsExactly(started.get(2));
    }

    @Test
    void onASinglePrimaryEachStartIsOneCommand(@TempDir Path dir) throws Exception {
        try (RedisServer server = RedisServer.start(dir); RedisConnections redis = RedisConnections.connect(server.url());
                Socket monitor = new Socket("127.0.0.1", server.port())) {
            Fixture f = Fixture.on(redis);
            String busy = f.busyThread("run_holder");
            f.start(f.command(Ids.newThreadId()), ThreadPlan.NEW); // the library is loaded by the first call
            OutputStream out = monitor.getOutputStream();
            out.write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            BufferedReader lines = new BufferedReader(new InputStreamReader(monitor.getInputStream(), StandardCharsets.UTF_8));
            assertThat(lines.readLine()).isEqualTo("+OK");

            List<RunCommand> commands = new ArrayList<>();
            for (ThreadPlan plan : ThreadPlan.values()) {
                RunCommand command = f.command(plan == ThreadPlan.NONE ? null : plan == ThreadPlan.NEW ? Ids.newThreadId() : busy);
                commands.add(command);
                f.start(command, plan, plan == ThreadPlan.NEW ? new RunStarts.Reservation("d-" + UUID.randomUUID(), "fp") : null,
                        plan == ThreadPlan.ENQUEUE ? new RunStarts.SpendCharge("fam", "2026-11-28", 10, 10, Duration.ofDays(1)) : null,
                        false, null);
            }
            redis.sync().set("run-starts-test:end", "1"); // the last line to read

            List<String> fromClient = new ArrayList<>();
            for (String line = lines.readLine(); line != null && !line.contains("run-starts-test:end"); line = lines.readLine()) {
                if (!line.contains(" lua] ")) {
                    fromClient.add(line);
                }
            }
            assertThat(fromClient).as("commands clients sent, one start after another (%s)", List.of(ThreadPlan.values()))
                    .hasSize(ThreadPlan.values().length)
                    .allSatisfy(line -> assertThat(line).contains("\"FCALL\" \"start_run_"));
            for (int i = 0; i < commands.size(); i++) {
                assertThat(fromClient.get(i)).contains(commands.get(i).runId());
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
