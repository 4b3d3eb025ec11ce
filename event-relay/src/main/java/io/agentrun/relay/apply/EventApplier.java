package io.agentrun.relay.apply;

import io.agentrun.model.event.EventData;
import io.agentrun.model.event.EventType;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.model.thread.ChatMessage;
import io.agentrun.platform.redis.LuaScript;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.StateSettings;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Applies events to Redis, in order and pipelined: for each event the thread script (history, lock)
 * goes before the run script (resume buffer, state, live publish). Redis runs one connection's commands
 * in order, so when an api node sees {@code run_end} the history is written and the lock released.
 */
public final class EventApplier {

    private static final LuaScript RUN_SCRIPT = LuaScript.fromResource(EventApplier.class, "apply-run-event.lua");
    private static final LuaScript THREAD_SCRIPT = LuaScript.fromResource(EventApplier.class, "apply-thread-event.lua");
    private static final LuaScript SPEND_SCRIPT = LuaScript.fromResource(EventApplier.class, "count-spend.lua");
    private static final Duration SPEND_KEPT = Duration.ofDays(2);

    private final RedisAsyncCommands<String, String> redis;
    private final JsonCodec codec;
    private final StateSettings settings;

    /** @param connection dedicated to this applier: its pipeline order is the apply order */
    public EventApplier(StatefulRedisConnection<String, String> connection, JsonCodec codec, StateSettings settings) {
        this.redis = connection.async();
        this.codec = codec;
        this.settings = settings;
    }

    /**
     * Queues loading both scripts; call at the head of every batch. Then a Redis that restarted since the
     * last batch knows them before the first event, and no call in the batch fails with NOSCRIPT while a
     * later one succeeds (which would apply events out of order).
     */
    public CompletableFuture<Void> beginBatch() {
        return CompletableFuture.allOf(THREAD_SCRIPT.load(redis), RUN_SCRIPT.load(redis), SPEND_SCRIPT.load(redis));
    }

    /** Queues the Redis writes of {@code event}; the future completes when Redis has applied them. */
    public CompletableFuture<Void> apply(RunEvent event, String envelopeJson, int partition, long offset) {
        return apply(event, envelopeJson, partition, offset, "");
    }

    /** @param traceparent prefixed to the live message (not the buffer) when not empty; see apply-run-event.lua */
    public CompletableFuture<Void> apply(RunEvent event, String envelopeJson, int partition, long offset, String traceparent) {
        List<CompletableFuture<Long>> writes = new ArrayList<>(2);
        if (event.threadId() != null && touchesThread(event.type())) {
            writes.add(applyToThread(event, partition, offset));
        }
        writes.add(applyToRun(event, envelopeJson, partition, offset, traceparent));
        if (event.data() instanceof EventData.RunEnd end && end.usage().inputTokens() + end.usage().outputTokens() > 0) {
            writes.add(countSpend(event, end.usage().inputTokens() + end.usage().outputTokens()));
        }
        return CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new));
    }

    private static boolean touchesThread(EventType type) {
        return type == EventType.RUN_START || type == EventType.MESSAGE_FINAL || type == EventType.RUN_END;
    }

    private CompletableFuture<Long> applyToThread(RunEvent event, int partition, long offset) {
        String threadId = event.threadId();
        String message = switch (event.data()) {
            case EventData.RunStart start -> codec.write(ChatMessage.user(event.runId(), start.input(), event.createdAt()));
            case EventData.MessageFinal done -> codec.write(done.wasCancelled()
                    ? ChatMessage.cancelledAssistant(event.runId(), done.messageId(), done.content(), event.createdAt())
                    : ChatMessage.assistant(event.runId(), done.messageId(), done.content(), event.createdAt()));
            default -> "";
        };
        return THREAD_SCRIPT.call(redis,
                new String[] {RedisKeys.thread(threadId), RedisKeys.threadMessages(threadId), RedisKeys.threadLock(threadId)},
                event.type().wireName(), event.runId(), Long.toString(offset), event.createdAt().toString(),
                Long.toString(settings.threadRetention().toMillis()), message, Long.toString(event.seq()),
                Integer.toString(partition),
                event.data() instanceof EventData.RunStart start ? Integer.toString(start.attempt()) : "0");
    }

    private CompletableFuture<Long> applyToRun(RunEvent event, String envelopeJson, int partition, long offset, String traceparent) {
        String[] detail = switch (event.data()) {
            case EventData.RunStart start -> new String[] {Integer.toString(start.attempt()), ""};
            case EventData.RunError error -> new String[] {error.code(), error.message()};
            case EventData.RunEnd end -> new String[] {end.status().wireName(), end.output()};
            default -> new String[] {"", ""};
        };
        return RUN_SCRIPT.call(redis,
                new String[] {RedisKeys.run(event.runId()), RedisKeys.runEvents(event.runId())},
                Long.toString(event.seq()), envelopeJson, event.type().wireName(), RedisKeys.liveChannel(event.runId()),
                Long.toString(settings.resumeBufferMaxEvents()), Long.toString(settings.resumeBufferTtl().toMillis()),
                Long.toString(settings.runRetention().toMillis()), Integer.toString(partition), Long.toString(offset),
                event.createdAt().toString(), detail[0], detail[1], traceparent);
    }

    /**
     * Runs started with a publishable key carry its family in their state; their tokens count against its
     * daily spend cap, on the UTC day the run ended.
     */
    private CompletableFuture<Long> countSpend(RunEvent event, long tokens) {
        return redis.hget(RedisKeys.run(event.runId()), RunStore.KEY_FAMILY).toCompletableFuture().thenCompose(family -> {
            if (family == null) {
                return CompletableFuture.completedFuture(0L);
            }
            String day = LocalDate.ofInstant(event.createdAt(), ZoneOffset.UTC).toString();
            return SPEND_SCRIPT.call(redis, new String[] {RedisKeys.spend(family, day), RedisKeys.spendCounted(family, day)},
                    event.runId(), Long.toString(tokens), Long.toString(SPEND_KEPT.toSeconds()));
        });
    }
}
