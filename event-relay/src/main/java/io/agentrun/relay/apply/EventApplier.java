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
 * Applies events to Redis, in order and pipelined, in two steps per event. First the run script decides
 * whether the event belongs to its run — not of an epoch the run has left (a worker that lost its lease),
 * not after the run's run_end — and if so appends it to the resume buffer and updates the run's state.
 * Then, only for events it applied, the thread script (history, lock) and the live publish, in that order:
 * Redis runs one connection's commands in order, so when an api node sees {@code run_end} the history is
 * written and the lock released. A fenced event reaches no client and no history.
 */
public final class EventApplier {

    private static final LuaScript RUN_SCRIPT = LuaScript.fromResource(EventApplier.class, "apply-run-event.lua");
    private static final LuaScript THREAD_SCRIPT = LuaScript.fromResource(EventApplier.class, "apply-thread-event.lua");
    private static final LuaScript SPEND_SCRIPT = LuaScript.fromResource(EventApplier.class, "count-spend.lua");
    private static final Duration SPEND_KEPT = Duration.ofDays(2);

    /** What the run script decided (its return value). */
    static final long APPLIED = 1;
    static final long APPLIED_BEFORE = 0;
    static final long FENCED = 2;
    static final long AFTER_END = 3;

    private final RedisAsyncCommands<String, String> redis;
    private final JsonCodec codec;
    private final StateSettings settings;
    private final java.util.concurrent.atomic.LongAdder fenced = new java.util.concurrent.atomic.LongAdder();

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

    /**
     * @param traceparent prefixed to the live message (not the buffer) when not empty: {@code traceparent\n}
     *                    before the envelope, so the api node's write of the event joins the trace
     */
    public CompletableFuture<Void> apply(RunEvent event, String envelopeJson, int partition, long offset, String traceparent) {
        // The second step is queued when the first one's reply arrives; replies arrive in order, so the second
        // steps of a batch reach Redis in the batch's order too.
        return applyToRun(event, envelopeJson, partition, offset)
                .thenCompose(decision -> follow(event, envelopeJson, partition, offset, traceparent, decision));
    }

    /** Events of an epoch their run had left (a worker that lost its lease): never buffered, published or stored. */
    public long fencedCount() {
        return fenced.sum();
    }

    private CompletableFuture<Void> follow(RunEvent event, String envelopeJson, int partition, long offset, String traceparent,
            long decision) {
        if (decision == FENCED || decision == AFTER_END) {
            if (decision == FENCED) {
                fenced.increment();
            }
            return CompletableFuture.completedFuture(null);
        }
        List<CompletableFuture<?>> writes = new ArrayList<>(3);
        if (event.threadId() != null && touchesThread(event.type())) {
            // Also for an event applied before: its batch may have failed between the two steps.
            writes.add(applyToThread(event, partition, offset));
        }
        if (decision == APPLIED) {
            String message = traceparent.isEmpty() ? envelopeJson : traceparent + "\n" + envelopeJson;
            writes.add(redis.publish(RedisKeys.liveChannel(event.runId()), message).toCompletableFuture());
            if (event.data() instanceof EventData.RunEnd end && end.usage().inputTokens() + end.usage().outputTokens() > 0) {
                writes.add(countSpend(event, end.usage().inputTokens() + end.usage().outputTokens()));
            }
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

    private CompletableFuture<Long> applyToRun(RunEvent event, String envelopeJson, int partition, long offset) {
        String[] detail = switch (event.data()) {
            case EventData.RunStart start -> new String[] {Integer.toString(start.attempt()), ""};
            case EventData.RunError error -> new String[] {error.code(), error.message()};
            case EventData.RunEnd end -> new String[] {end.status().wireName(), end.output()};
            default -> new String[] {"", ""};
        };
        return RUN_SCRIPT.call(redis,
                new String[] {RedisKeys.run(event.runId()), RedisKeys.runEvents(event.runId())},
                Long.toString(event.seq()), envelopeJson, event.type().wireName(),
                Long.toString(settings.resumeBufferMaxEvents()), Long.toString(settings.resumeBufferTtl().toMillis()),
                Long.toString(settings.runRetention().toMillis()), Integer.toString(partition), Long.toString(offset),
                event.createdAt().toString(), detail[0], detail[1], Integer.toString(event.epoch()));
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
