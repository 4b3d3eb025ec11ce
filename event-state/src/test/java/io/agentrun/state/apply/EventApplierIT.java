package io.agentrun.state.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.command.RunInput;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.event.Usage;
import io.agentrun.model.id.Ids;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.StateSettings;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link EventApplier} against a real redis-server: what it publishes live to the api node watching a run when a batch
 * fails part way and is read again.
 */
@ExtendWith(RealInfrastructure.class)
class EventApplierIT {

    private static final JsonCodec CODEC = new JsonCodec();
    private static final StateSettings SETTINGS = new StateSettings(Duration.ofHours(1), Duration.ofHours(1),
            Duration.ofMinutes(1), Duration.ofHours(1), 10_000, Duration.ofSeconds(30));
    @AutoClose
    static RedisConnections redis;

    private final List<String> published = new CopyOnWriteArrayList<>();
    private StatefulRedisPubSubConnection<String, String> watcher;
    private RedisConnections.DedicatedConnection connection;
    private String node;

    @BeforeAll
    static void connect() {
        redis = RedisConnections.connect(RealInfrastructure.redisUrl());
    }

    /** An api node (a fresh name per test) listening on its live channel, as {@code LiveEvents} does. */
    @BeforeEach
    void watch() {
        node = "node-" + Ids.newRunId();
        watcher = redis.newPubSub();
        watcher.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void smessage(String channel, String message) {
                published.addAll(List.of(message.split("\n")));
            }
        });
        watcher.sync().ssubscribe(RedisKeys.nodeChannel(node));
        connection = redis.newConnection();
    }

    @AfterEach
    void close() {
        watcher.close();
        connection.close();
    }

    @Test
    void aThreadedRunEndWhoseThreadWriteFailedIsPublishedOnceItsBatchReadAgainWritesTheThread() {
        String threadId = Ids.newThreadId();
        List<RelayedEvent> batch = queuedThreadedRun(threadId);
        redis.sync().set(RedisKeys.thread(threadId), "not a hash"); // the thread script fails on it (WRONGTYPE)
        EventApplier applier = new EventApplier(connection, CODEC, SETTINGS);

        assertThat(applier.apply(batch)).failsWithin(Duration.ofSeconds(10));
        await().atMost(Duration.ofSeconds(10)).until(() -> published.size() >= 2);
        assertThat(types()).as("the run's events, but not the run_end of a thread not yet written").containsExactly("run_start", "message_final");

        redis.sync().del(RedisKeys.thread(threadId));
        assertThat(applier.apply(batch)).succeedsWithin(Duration.ofSeconds(10));
        await().atMost(Duration.ofSeconds(10)).until(() -> published.size() >= 3);
        assertThat(types()).as("read again, the run_end applied before is published once its thread is written")
                .containsExactly("run_start", "message_final", "run_end");
        assertThat(redis.sync().exists(RedisKeys.threadLock(threadId))).as("the thread's lock released").isZero();
    }

    @Test
    void aBatchReadAgainAfterItWasWhollyAppliedPublishesNothingAgain() {
        List<RelayedEvent> batch = queuedThreadedRun(Ids.newThreadId());
        EventApplier applier = new EventApplier(connection, CODEC, SETTINGS);
        assertThat(applier.apply(batch)).succeedsWithin(Duration.ofSeconds(10));

        assertThat(applier.apply(batch)).succeedsWithin(Duration.ofSeconds(10));
        List<RelayedEvent> marker = queuedThreadedRun(Ids.newThreadId());
        assertThat(applier.apply(marker.subList(0, 1))).succeedsWithin(Duration.ofSeconds(10));
        await().atMost(Duration.ofSeconds(10)).until(() -> published.size() >= 4); // the marker comes after any copy

        assertThat(types()).containsExactly("run_start", "message_final", "run_end", "run_start");
    }

    private List<String> types() {
        return published.stream().map(line -> CODEC.peekHeader(line.substring(line.indexOf('{'))).type()).toList();
    }

    /** A run of {@code threadId} as the api leaves it (queued by this node, holding the thread's lock), and its events. */
    private List<RelayedEvent> queuedThreadedRun(String threadId) {
        String runId = Ids.newRunId();
        redis.sync().hset(RedisKeys.run(runId), Map.of("status", "queued", "epoch", "1", "node", node));
        redis.sync().set(RedisKeys.threadLock(threadId), runId);
        return threadedRun(threadId, runId);
    }

    private static List<RelayedEvent> threadedRun(String threadId, String runId) {
        Instant now = Instant.now();
        List<EventData> data = List.of(
                new EventData.RunStart(threadId, runId, "assistant", 1, RunInput.ofQuery("hi"), Map.of()),
                new EventData.MessageFinal(Ids.newMessageId(), "hello", Usage.NONE),
                new EventData.RunEnd(RunStatus.COMPLETED, "hello", Usage.NONE, 1));
        List<RelayedEvent> batch = new ArrayList<>();
        for (int seq = 0; seq < data.size(); seq++) {
            RunEvent event = new RunEvent(seq, 1, runId, threadId, "demo", "assistant", now, data.get(seq));
            batch.add(RelayedEvent.of(event, CODEC.encodeToString(event), 0, 100 + seq));
        }
        return batch;
    }
}
