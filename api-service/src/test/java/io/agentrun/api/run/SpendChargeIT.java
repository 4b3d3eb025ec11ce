package io.agentrun.api.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.agentrun.api.auth.Caller;
import io.agentrun.api.auth.SpendCaps;
import io.agentrun.api.upload.IssuedFiles;
import io.agentrun.infra.redis.RedisServer;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.admin.SpendCap;
import io.agentrun.model.command.RunInput;
import io.agentrun.model.command.RunMode;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.model.testing.TestData;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.AgentCatalog;
import io.agentrun.platform.store.ContextStore;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.StateSettings;
import io.agentrun.platform.store.ThreadStore;
import io.lettuce.core.RedisException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A publishable key's run is charged to its daily spend cap before its thread is taken; a run refused after the
 * charge gets it back, whatever refused it. Here the thread store's Redis is gone (a real server, stopped), so loading
 * the thread the run continues fails with a Redis error rather than a problem — the charge must still be given back.
 */
@ExtendWith(RealInfrastructure.class)
class SpendChargeIT {

    private static final StateSettings STATE = new StateSettings(Duration.ofDays(1), Duration.ofDays(1), Duration.ofMinutes(1),
            Duration.ofHours(1), 1000, Duration.ofSeconds(30));
    private static RedisConnections shared;
    private static RedisConnections lost;
    private static RedisServer lostServer;

    @BeforeAll
    static void start(@TempDir Path dir) {
        shared = RedisConnections.connect(RealInfrastructure.redisUrl());
        lostServer = RedisServer.start(dir);
        lost = RedisConnections.connect(lostServer.url(), Duration.ofMillis(500));
        lostServer.kill();
    }

    @AfterAll
    static void stop() {
        lost.close();
        lostServer.close();
        shared.close();
    }

    @Test
    void aRunRefusedByARedisErrorAfterItsChargeGivesTheChargeBack() {
        String projectId = "proj-" + UUID.randomUUID();
        JsonCodec codec = new JsonCodec();
        AgentCatalog agents = new AgentCatalog(shared, codec);
        agents.put(projectId, TestData.anAgent().id("assistant").build());
        SpendCaps spendCaps = new SpendCaps(shared, Clock.systemUTC());
        // The live events, the command producer, the ownership and the canceller come after the thread is loaded and
        // taken: this run never reaches them. (A new thread's writes are only waited for once the run is recorded.)
        RunLauncher launcher = new RunLauncher(agents, new ContextStore(shared, codec), new ThreadStore(lost, STATE, codec),
                new RunStore(lost, STATE), null, null, spendCaps, new IssuedFiles(null), null, null, Duration.ofSeconds(1), null);
        String family = "pk-family-" + UUID.randomUUID();
        Caller caller = new Caller(projectId, Caller.Kind.PUBLISHABLE_KEY, "widget", family, new SpendCap(10, 1_000));

        assertThatThrownBy(() -> launcher.launch(caller, "assistant", io.agentrun.model.id.Ids.newThreadId(), RunMode.STREAM, IfBusy.REJECT,
                new RunRequest(RunInput.ofQuery("hello"), Map.of()))).isInstanceOf(RedisException.class);

        String runs = shared.sync().hget(RedisKeys.spend(family, LocalDate.now(ZoneOffset.UTC).toString()), "runs");
        assertThat(runs).as("runs counted today").isEqualTo("0");
    }
}
