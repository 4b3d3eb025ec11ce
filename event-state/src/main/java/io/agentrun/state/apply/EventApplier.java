package io.agentrun.state.apply;

import io.agentrun.model.event.EventData;
import io.agentrun.model.event.EventType;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.model.thread.ChatMessage;
import io.agentrun.model.thread.ThreadDeleted;
import io.agentrun.platform.store.RunLibrary;
import io.agentrun.platform.store.ThreadDeletion;
import io.agentrun.platform.store.StateSettings;
import io.agentrun.platform.redis.RedisConnections.DedicatedConnection;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;

/**
 * Applies batches of events to Redis, pipelined, in two steps per run of the batch. First the run script takes all of
 * the batch's events of that run, in order ({@link RunCalls}: a call per run, or one call for the whole batch on a
 * single primary): it decides for each whether it belongs to its run — not of an epoch the run has left (a worker that
 * lost its lease), not after the run's run_end — appends what belongs to the resume buffer, updates the run's state and
 * answers which api nodes watch the run. Then, for the events it applied, the thread script (history, lock). Once every
 * call of the batch has answered, what was applied goes out in one live message per watching api node
 * ({@link LiveFanOut}), so a threaded run's run_end reaches a node after its history is written and its lock released
 * (in a Redis Cluster the thread's keys may live on another node; and when the batch is read again after it failed in
 * the thread's write, once the thread takes the run_end). A fenced event reaches no client and no history.
 *
 * <p>Per batch, one run-script call per run (or one in all) and one live message per api node, rather than a call and a
 * publish per event: each round trip saved is CPU saved in the relay, in Redis and in every api node.
 */
public final class EventApplier {

    private static final Duration SPEND_KEPT = Duration.ofDays(2);
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);
    /** The thread script's first answer when it applied the event now (0: before, or a deleted thread). */
    private static final Long THREAD_APPLIED = 1L;

    /** What the run script decided for an event (its return values). */
    static final long APPLIED = 1;
    static final long APPLIED_BEFORE = 0;
    static final long FENCED = 2;
    static final long AFTER_END = 3;
    static final long AFTER_GAP = 4;

    private final StatefulConnection<String, String> connection;
    /** A single primary (or sentinels): one call may take many runs' keys. In a Redis Cluster each run has its own call. */
    private final boolean singlePrimary;
    private final RedisClusterAsyncCommands<String, String> redis;
    private final JsonCodec codec;
    private final StateSettings settings;
    private final ThreadDeletion deletion;
    private final RunCalls runCalls;
    private final BiConsumer<String, String> handedOn;
    private final LongAdder fenced = new LongAdder();
    private final LongAdder afterGap = new LongAdder();
    /** False until the run library is loaded through this connection, and again after any failed batch. */
    private volatile boolean libraryLoaded;

    /** @param connection dedicated to this applier: its pipeline order is the apply order */
    public EventApplier(DedicatedConnection connection, JsonCodec codec, StateSettings settings) {
        this(connection, codec, settings, (thread, run) -> { });
    }

    /**
     * @param handedOn told (thread, run) when a run_end handed its thread to a waiting run, which must be started now;
     *     called on a Redis reply, so it must not block
     */
    public EventApplier(DedicatedConnection connection, JsonCodec codec, StateSettings settings, BiConsumer<String, String> handedOn) {
        this.handedOn = handedOn;
        this.connection = connection.connection();
        this.singlePrimary = !(this.connection instanceof StatefulRedisClusterConnection);
        this.redis = connection.async();
        this.deletion = new ThreadDeletion(codec, settings);
        this.runCalls = new RunCalls(redis, codec, settings);
        this.codec = codec;
        this.settings = settings;
    }

    /**
     * Queues the Redis writes of a batch, in the batch's order per run; the future completes when Redis has
     * applied them all, and fails when any failed (the caller reads the batch again: every step is idempotent).
     *
     * <p>The run library is loaded ahead of the first batch, and again after a failed one, on this connection's
     * pipeline: Redis keeps it across restarts and failovers, and a server that lost it (one that keeps nothing on disk,
     * restarted) fails one batch as a whole ("Function not found"): every call after the restart fails alike, none runs
     * later than a call queued behind it.
     */
    public CompletableFuture<Void> apply(List<RelayedEvent> batch) {
        if (!singlePrimary) {
            // In a Redis Cluster each call leaves as it is made: a node connection the client opens while auto-flush is
            // off (a failover's new primary) may keep it off, and what is sent on it would wait for a flush that never
            // comes.
            return queue(batch);
        }
        // The batch's calls leave in one write (one flush, one wake-up of the client's I/O thread, one read at Redis)
        // rather than one each. Auto-flush is back on before the flush, so nothing sent later (the follow-ups sent
        // from replies) waits for a flush that never comes.
        connection.setAutoFlushCommands(false);
        try {
            return queue(batch);
        } finally {
            connection.setAutoFlushCommands(true);
            connection.flushCommands();
        }
    }

    private CompletableFuture<Void> queue(List<RelayedEvent> batch) {
        List<CompletableFuture<?>> writes = new ArrayList<>();
        writes.add(loadIfNeeded());
        Map<String, List<RelayedEvent>> byRun = new LinkedHashMap<>();
        for (RelayedEvent event : batch) {
            byRun.computeIfAbsent(event.runId(), run -> new ArrayList<>()).add(event);
        }
        // Every run's script call is sent at once (pipelined). What follows a run's reply (the thread script) is chained
        // per thread in the batch's order: in a Redis Cluster the runs' replies come from different nodes in any order,
        // and a thread's history must take its runs in the topic's order. On a single node the replies come in order
        // anyway, so the chain waits for nothing.
        LiveFanOut fanOut = new LiveFanOut(byRun.size());
        Map<String, CompletableFuture<Void>> threadTails = new HashMap<>();
        List<List<RelayedEvent>> runs = List.copyOf(byRun.values());
        List<CompletableFuture<List<Object>>> replies = singlePrimary ? runCalls.callForAll(runs)
                : runs.stream().map(runCalls::callForOne).toList();
        for (int slot = 0; slot < runs.size(); slot++) {
            int runSlot = slot;
            List<RelayedEvent> events = runs.get(slot);
            CompletableFuture<List<Object>> decided = replies.get(slot);
            String threadId = events.get(0).threadId();
            CompletableFuture<Void> previous = threadId == null ? DONE : threadTails.getOrDefault(threadId, DONE);
            CompletableFuture<Void> followed = decided.thenCompose(reply -> previous.thenCompose(
                    done -> follow(events, RunScriptReply.of(reply), fanOut, runSlot)));
            if (threadId != null) {
                threadTails.put(threadId, followed);
            }
            writes.add(followed);
        }
        // What was applied is published even when another part of the batch failed: read again, it counts as applied
        // before and is not published twice (its watchers would otherwise wait for their next gap check).
        return CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new))
                .handle((done, failure) -> failure)
                .thenCompose(failure -> fanOut.publish(redis).handle((published, publishFailure) -> {
                    Throwable first = failure != null ? failure : publishFailure;
                    if (first != null) {
                        libraryLoaded = false;
                        throw first instanceof java.util.concurrent.CompletionException c ? c
                                : new java.util.concurrent.CompletionException(first);
                    }
                    return null;
                }));
    }

    /** Events ignored because an earlier event of their attempt never reached Kafka. */
    public long afterGapCount() {
        return afterGap.sum();
    }

    /** Events of an epoch their run had left (a worker that lost its lease): never buffered, published or stored. */
    public long fencedCount() {
        return fenced.sum();
    }

    /** @param runSlot the run's place in {@code fanOut}, where the events its call applied are published from */
    private CompletableFuture<Void> follow(List<RelayedEvent> events, RunScriptReply reply, LiveFanOut fanOut, int runSlot) {
        LiveFanOut.Slot watchers = fanOut.slot(runSlot, reply.watchers());
        List<CompletableFuture<?>> writes = new ArrayList<>(2);
        List<RelayedEvent> toThread = new ArrayList<>(3);
        RelayedEvent threadedEnd = null;
        long threadedEndDecision = AFTER_END;
        for (int i = 0; i < events.size(); i++) {
            long decision = reply.decisions().get(i);
            RelayedEvent relayed = events.get(i);
            if (decision == FENCED) {
                fenced.increment();
                continue;
            }
            if (decision == AFTER_GAP) {
                afterGap.increment();
                continue;
            }
            if (decision == AFTER_END) {
                continue;
            }
            RunEvent event = relayed.event();
            boolean endsThreadedRun = relayed.type() == EventType.RUN_END && relayed.threadId() != null;
            if (decision == APPLIED && !endsThreadedRun) {
                watchers.add(relayed.traceparent(), relayed.json());
            }
            if (event == null) {
                continue;
            }
            if (event.threadId() != null && touchesThread(event.type())) {
                // Also for an event applied before: its batch may have failed between the two steps.
                toThread.add(relayed);
            }
            if (event.data() instanceof EventData.RunEnd end) {
                if (endsThreadedRun) {
                    threadedEnd = relayed;
                    threadedEndDecision = decision;
                }
                long tokens = end.usage().inputTokens() + end.usage().outputTokens();
                if (tokens > 0 && !reply.keyFamily().isEmpty()) {
                    // Also for a run_end applied before: its batch may have failed before the count (counted once per run).
                    writes.add(countSpend(event, reply.keyFamily(), tokens));
                }
            }
        }
        if (toThread.isEmpty()) {
            return CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new));
        }
        // The run's thread events go in one call: atomic, so no failover can apply them out of order (pipelined one by
        // one, the client library re-sent what a lost primary had not answered to its successor, and a run_end applied
        // before its message_final left the message out for good: RedisClusterFaultIT, a history without its run).
        CompletableFuture<List<Object>> threadWritten = applyToThread(toThread, events.get(0).partition());
        writes.add(threadWritten);
        if (threadedEnd != null) {
            RelayedEvent end = threadedEnd;
            long decision = threadedEndDecision;
            int index = toThread.size() - 1; // a run_end is its run's last event
            // Published after the history is written and the lock released (in a cluster, on another node). Also when
            // the run's call applied it before but the thread takes it now: its batch failed in the thread's write (a
            // Redis that lost the run library, or any other failed write), so nobody published it, and its watchers
            // would wait for their gap check (LiveFailoverIT: a run_end 2 s late).
            writes.add(threadWritten.thenAccept(answer -> {
                boolean threadTookIt = THREAD_APPLIED.equals(((List<?>) answer.get(0)).get(index));
                if (decision == APPLIED || threadTookIt) {
                    watchers.add(end.traceparent(), end.json());
                }
            }));
        }
        return CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new));
    }

    /** A thread's deletion, met in the topic: its state goes, and its late events are ignored from now on. */
    public CompletableFuture<?> applyDeletion(ThreadDeleted deleted) {
        CompletableFuture<?> loaded = loadIfNeeded();
        return deletion.apply(redis, deleted).whenComplete((done, failure) -> {
            if (failure != null) {
                libraryLoaded = false;
            }
        }).thenCombine(loaded, (done, load) -> done);
    }

    /** The library's load, sent ahead of what follows on this connection, when it may be missing; else nothing. */
    private CompletableFuture<?> loadIfNeeded() {
        if (libraryLoaded) {
            return DONE;
        }
        return RunLibrary.LIBRARY.load(connection).thenRun(() -> libraryLoaded = true);
    }

    private static boolean touchesThread(EventType type) {
        return type == EventType.RUN_START || type == EventType.MESSAGE_FINAL || type == EventType.RUN_END;
    }

    /**
     * One run's events (run_start, message_final, run_end) applied to its thread in one call; tells {@code handedOn}
     * when its run_end handed the thread to a waiting run.
     *
     * @return {one flag per event (1 applied | 0), the waiting run its thread was handed to or ''}
     */
    private CompletableFuture<List<Object>> applyToThread(List<RelayedEvent> events, int partition) {
        RunEvent first = events.get(0).event();
        String threadId = first.threadId();
        List<String> args = new ArrayList<>(6 + events.size() * 8);
        args.add(first.runId());
        args.add(Integer.toString(partition));
        args.add(Long.toString(settings.threadRetention().toMillis()));
        args.add(Long.toString(settings.threadLockTtl().toMillis()));
        args.add(first.projectId());
        args.add(first.agentId());
        for (RelayedEvent event : events) {
            addThreadArgs(args, event);
        }
        return RunLibrary.APPLY_THREAD_EVENTS.callList(redis,
                new String[] {RedisKeys.thread(threadId), RedisKeys.threadMessages(threadId), RedisKeys.threadLock(threadId),
                        RedisKeys.threadRuns(threadId), RedisKeys.threadDeleted(threadId), RedisKeys.threadWaiting(threadId)},
                args.toArray(String[]::new)).thenApply(answer -> {
                    String next = String.valueOf(answer.get(1));
                    if (!next.isEmpty()) {
                        handedOn.accept(threadId, next);
                    }
                    return answer;
                });
    }

    private void addThreadArgs(List<String> args, RelayedEvent relayed) {
        RunEvent event = relayed.event();
        String message = switch (event.data()) {
            case EventData.RunStart start -> codec.write(ChatMessage.user(event.runId(), start.input(), event.createdAt()));
            case EventData.MessageFinal done when done.wasRejected() -> ""; // an answer out of shape: not history
            case EventData.MessageFinal done -> codec.write(done.wasCancelled()
                    ? ChatMessage.cancelledAssistant(event.runId(), done.messageId(), done.content(), event.createdAt())
                    : ChatMessage.assistant(event.runId(), done.messageId(), done.content(), event.createdAt()));
            default -> "";
        };
        args.add(event.type().wireName());
        args.add(Long.toString(relayed.offset()));
        args.add(Long.toString(event.seq()));
        args.add(event.createdAt().toString());
        args.add(Long.toString(event.createdAt().toEpochMilli()));
        args.add(event.data() instanceof EventData.RunStart start ? Integer.toString(start.attempt()) : "0");
        args.add(message);
        args.add(event.data() instanceof EventData.RunStart start ? codec.write(start.metadata()) : "");
    }

    /**
     * Runs started with a publishable key carry its family in their state (the run script reads it); their tokens
     * count against its daily spend cap, on the UTC day the run ended.
     */
    private CompletableFuture<Long> countSpend(RunEvent event, String family, long tokens) {
        String day = LocalDate.ofInstant(event.createdAt(), ZoneOffset.UTC).toString();
        return RunLibrary.COUNT_SPEND.call(redis, new String[] {RedisKeys.spend(family, day), RedisKeys.spendCounted(family, day)},
                event.runId(), Long.toString(tokens), Long.toString(SPEND_KEPT.toSeconds()));
    }

    /** What the run script answered: a decision per event, the api nodes watching the run, its key family ('' if none). */
    private record RunScriptReply(List<Long> decisions, List<Object> watchers, String keyFamily) {
        @SuppressWarnings("unchecked")
        static RunScriptReply of(List<Object> reply) {
            return new RunScriptReply((List<Long>) (List<?>) reply.get(0), (List<Object>) reply.get(1), String.valueOf(reply.get(2)));
        }
    }
}
