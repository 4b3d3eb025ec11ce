package io.agentrun.worker.cancel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.id.Ids;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/** How a worker hears of cancels: the channel, the flag a cancel leaves, and nothing once the watcher stopped. */
@ExtendWith(RealInfrastructure.class)
class CancellationWatcherIT {

    private static final Duration RECHECK = Duration.ofMillis(50);
    private static RedisConnections redis;
    private static LettuceConnectionFactory factory;
    private static RedisMessageListenerContainer listeners;
    private static ThreadPoolTaskScheduler timers;

    @BeforeAll
    static void start() {
        redis = RedisConnections.connect(RealInfrastructure.redisUrl());
        factory = new LettuceConnectionFactory(LettuceConnectionFactory.createRedisConfiguration(RealInfrastructure.redisUrl()));
        factory.afterPropertiesSet();
        listeners = new RedisMessageListenerContainer();
        listeners.setConnectionFactory(factory);
        listeners.afterPropertiesSet();
        listeners.start();
        timers = new ThreadPoolTaskScheduler();
        timers.initialize();
    }

    @AfterAll
    static void stop() throws Exception {
        timers.shutdown();
        listeners.destroy();
        factory.destroy();
        redis.close();
    }

    private static CancellationWatcher started(Duration recheck) {
        CancellationWatcher watcher = new CancellationWatcher(redis, listeners, timers, recheck);
        watcher.start();
        return watcher;
    }

    @Test
    void aCancelPublishedOnTheChannelCancelsTheRunningRun() {
        CancellationWatcher watcher = started(Duration.ofHours(1)); // no re-check: the channel alone
        try {
            String runId = Ids.newRunId();
            CancelToken token = new CancelToken();
            watcher.track(runId, token);

            redis.sync().publish(RedisKeys.cancel(runId), "cancel");

            await().atMost(Duration.ofSeconds(5)).until(token::isCancelled);
        } finally {
            watcher.stop();
        }
    }

    @Test
    void aCancelWhoseMessageWasLostIsFoundByTheRecheckOfItsFlag() {
        CancellationWatcher watcher = started(RECHECK);
        try {
            String runId = Ids.newRunId();
            CancelToken token = new CancelToken();
            watcher.track(runId, token);

            redis.sync().set(RedisKeys.cancel(runId), "1"); // the flag, without its message

            await().atMost(Duration.ofSeconds(5)).until(token::isCancelled);
        } finally {
            watcher.stop();
        }
    }

    /** The re-check was scheduled for good: once stopped it went on reading Redis for the runs it still held. */
    @Test
    void aStoppedWatcherHearsAndChecksNothingMore() {
        CancellationWatcher watcher = started(RECHECK);
        String runId = Ids.newRunId();
        CancelToken token = new CancelToken();
        watcher.track(runId, token);

        watcher.stop();
        redis.sync().set(RedisKeys.cancel(runId), "1");
        redis.sync().publish(RedisKeys.cancel(runId), "cancel");

        // Twenty re-check intervals with the flag set: a live re-check would have cancelled the token in the first.
        await().during(RECHECK.multipliedBy(20)).atMost(RECHECK.multipliedBy(40)).until(() -> !token.isCancelled());
        assertThat(token.isCancelled()).isFalse();
        assertThat(watcher.isRunning()).isFalse();
    }
}
