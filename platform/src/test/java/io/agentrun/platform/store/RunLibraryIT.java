package io.agentrun.platform.store;

import static io.agentrun.platform.store.StoreTestSettings.LEASE;
import static io.agentrun.platform.store.StoreTestSettings.STATE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.command.RunCommand;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.model.testing.TestData;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.redis.RedisLibrary;
import io.agentrun.platform.store.RunOwnership.Claim;
import io.lettuce.core.FlushMode;
import io.lettuce.core.RedisCommandExecutionException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The run library as Redis keeps it: a server that lost it (no persistence, restarted: here {@code FUNCTION FLUSH})
 * gets it again from the first call that meets its absence, alone or pipelined; and two versions of it (a rolling
 * upgrade) live side by side, each service calling its own.
 */
@ExtendWith(RealInfrastructure.class)
class RunLibraryIT {

    private static final MovableClock CLOCK = new MovableClock(Instant.parse("2026-11-28T12:00:00Z"));
    private static RedisConnections redis;
    private static RunOwnership ownership;
    private static RunStore runs;

    @BeforeAll
    static void start() {
        redis = RedisConnections.connect(RealInfrastructure.redisUrl());
        ownership = new RunOwnership(redis, STATE, CLOCK, "run-library-test");
        runs = new RunStore(redis, STATE, new JsonCodec(), "run-library-test");
    }

    @AfterAll
    static void stop() {
        RunLibrary.LIBRARY.load(redis); // for the suites after this one in the JVM, should the last test have removed it
        redis.close();
    }

    @Test
    void aCallMadeAloneLoadsTheLibraryWhenRedisLostIt() {
        RunCommand command = TestData.aRunCommand().build();
        runs.createQueued(command);
        redis.sync().functionFlush(FlushMode.SYNC);

        assertThat(ownership.refuse(command.runId())).as("refused, through a library loaded again").isTrue();
        assertThat(redis.sync().hget(RedisKeys.run(command.runId()), RunStore.ERROR_CODE)).isEqualTo("not_queued");
        assertThat(loadedLibraries()).contains("agentrun_run_" + RunLibrary.LIBRARY.version());
    }

    @Test
    void pipelinedClaimsAreMadeAgainOnceTheLibraryIsLoaded() {
        RunCommand first = TestData.aRunCommand().build();
        RunCommand second = TestData.aRunCommand().build();
        runs.createQueued(first);
        runs.createQueued(second);
        redis.sync().functionFlush(FlushMode.SYNC);

        List<Claim> claims = ownership.claimAll(List.of(first.runId(), second.runId()), "worker-a", LEASE, Duration.ofSeconds(10));

        assertThat(claims).allSatisfy(claim -> assertThat(claim).isInstanceOf(Claim.Won.class));
        assertThat(ownership.claim(first.runId(), "worker-b", LEASE)).as("won once, by worker-a").isInstanceOf(Claim.Leased.class);
    }

    @Test
    void aPipelinedCallAloneFailsWhenTheLibraryIsMissingSoThatItsCallerLoadsItFirst() {
        redis.sync().functionFlush(FlushMode.SYNC);

        assertThatThrownBy(() -> RunLibrary.DELETE_RUN.call(redis.async(), new String[] {RedisKeys.run("run_x"), RedisKeys.runEvents("run_x")})
                .join()).hasCauseInstanceOf(RedisCommandExecutionException.class)
                .satisfies(failure -> assertThat(RedisLibrary.isNotLoaded(failure)).isTrue());
        RunLibrary.LIBRARY.load(redis);
        assertThat(RunLibrary.DELETE_RUN.call(redis.async(), new String[] {RedisKeys.run("run_x"), RedisKeys.runEvents("run_x")}).join())
                .as("an unknown run").isZero();
    }

    @Test
    void twoVersionsOfTheLibraryServeTheirOwnServicesSideBySide() throws Exception {
        RunLibrary.LIBRARY.load(redis);
        String template = new String(RunLibrary.class.getResourceAsStream("run-state.lua").readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        RedisLibrary next = RedisLibrary.fromSource(template + "\n-- the next release\n");

        next.load(redis);

        assertThat(next.version()).isNotEqualTo(RunLibrary.LIBRARY.version());
        assertThat(loadedLibraries()).contains("agentrun_run_" + RunLibrary.LIBRARY.version(), "agentrun_run_" + next.version());
        assertThat(next.function("version").runValue(redis, new String[0])).isEqualTo(next.version());
        assertThat(RunLibrary.LIBRARY.function("version").runValue(redis, new String[0])).isEqualTo(RunLibrary.LIBRARY.version());
        redis.sync().dispatch(io.lettuce.core.protocol.CommandType.FUNCTION, new io.lettuce.core.output.StatusOutput<>(
                io.lettuce.core.codec.StringCodec.UTF8), new io.lettuce.core.protocol.CommandArgs<>(io.lettuce.core.codec.StringCodec.UTF8)
                .add("DELETE").add("agentrun_run_" + next.version()));
    }

    private static List<String> loadedLibraries() {
        return redis.sync().functionList().stream().map(library -> String.valueOf(library.get("library_name"))).toList();
    }
}
