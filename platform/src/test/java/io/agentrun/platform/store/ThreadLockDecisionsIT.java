package io.agentrun.platform.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.id.Ids;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.redis.RedisConnections;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A thread's lock and its waiting runs ({@code if_busy}), one store against real Redis: who holds the thread, who is
 * next, and that a release by anyone but the holder changes nothing.
 */
@ExtendWith(RealInfrastructure.class)
class ThreadLockDecisionsIT {

    private static RedisConnections redis;
    private static ThreadStore threads;

    @BeforeAll
    static void start() {
        redis = RedisConnections.connect(RealInfrastructure.redisUrl());
        threads = new ThreadStore(redis, new StateSettings(Duration.ofDays(1), Duration.ofDays(1), Duration.ofMinutes(1),
                Duration.ofHours(1), 100, Duration.ofSeconds(30)), new JsonCodec());
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    @Test
    void rejectTakesAFreeThreadOnlyOnce() {
        String thread = newThread();

        assertThat(threads.tryLock(thread, "run_1")).isTrue();
        assertThat(threads.tryLock(thread, "run_2")).isFalse();
        assertThat(threads.lockHolder(thread)).hasValue("run_1");
    }

    @Test
    void enqueuedRunsTakeTheThreadInTheirOrderAndInterruptGoesFirst() {
        String thread = newThread();
        assertThat(threads.lockOrWait(thread, "run_1", false).holds()).isTrue();
        assertThat(threads.lockOrWait(thread, "run_2", false)).isEqualTo(new ThreadStore.LockOrWait(1, "run_1"));
        assertThat(threads.lockOrWait(thread, "run_3", false).place()).isEqualTo(2);
        assertThat(threads.lockOrWait(thread, "run_4", true).place()).as("interrupt: ahead of the others").isEqualTo(1);

        assertThat(threads.unlock(thread, "run_1")).hasValue("run_4");
        assertThat(threads.unlock(thread, "run_4")).hasValue("run_2");
        assertThat(threads.unlock(thread, "run_2")).hasValue("run_3");
        assertThat(threads.unlock(thread, "run_3")).isEmpty();
        assertThat(threads.lockHolder(thread)).isEmpty();
    }

    @Test
    void onlyTheHolderReleasesAndAWithdrawnRunIsSkipped() {
        String thread = newThread();
        threads.lockOrWait(thread, "run_1", false);
        threads.lockOrWait(thread, "run_2", false);
        threads.lockOrWait(thread, "run_3", false);

        assertThat(threads.unlock(thread, "run_2")).as("not the holder").isEmpty();
        assertThat(threads.lockHolder(thread)).hasValue("run_1");

        threads.withdraw(thread, "run_2"); // refused after it was queued
        assertThat(threads.unlock(thread, "run_1")).hasValue("run_3");
    }

    @Test
    void aFreeThreadWithWaitingRunsIsHandedOnByTheSweeper() {
        String thread = newThread();
        threads.lockOrWait(thread, "run_1", false);
        threads.lockOrWait(thread, "run_2", false);
        redis.sync().del(io.agentrun.model.naming.RedisKeys.threadLock(thread)); // the holder's lock expired, its hand-over lost

        assertThat(threads.handFreeThreadOn(thread)).hasValue("run_2");
        assertThat(threads.lockHolder(thread)).hasValue("run_2");
    }

    private static String newThread() {
        String thread = Ids.newThreadId();
        threads.create(thread, "proj", "assistant");
        return thread;
    }
}
