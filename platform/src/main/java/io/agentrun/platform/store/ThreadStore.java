package io.agentrun.platform.store;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.model.thread.ChatMessage;
import io.agentrun.platform.redis.RedisConnections;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.ScoredValue;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Threads in Redis: the owner hash, the history list and the lock that lets one run at a time hold a
 * thread. The relay appends history and releases the lock (its own scripts); this class is what api
 * nodes and workers need.
 */
public final class ThreadStore {

    /** The most of a run's thread lock its start may take without extending it ({@link #extendLockForStart}). */
    private static final Duration FRESH_RUN = Duration.ofSeconds(10);

    public static final String PROJECT = "project_id";
    public static final String AGENT = "agent_id";
    public static final String ACTIVE_RUN = "active_run";
    public static final String CREATED_AT = "created_at";
    public static final String UPDATED_AT = "updated_at";
    public static final String KEY_FAMILY = "key_family";
    /** The first run's request metadata (JSON), shown when the thread is read back. */
    public static final String METADATA = "metadata";


    private final RedisConnections redis;
    private final StateSettings settings;
    private final JsonCodec codec;

    public ThreadStore(RedisConnections redis, StateSettings settings, JsonCodec codec) {
        this.redis = redis;
        this.settings = settings;
        this.codec = codec;
    }

    public void create(String threadId, String projectId, String agentId) {
        create(threadId, projectId, agentId, null);
    }

    /** @param keyFamily the publishable key family starting it, which alone may continue it; {@code null} = any caller */
    public void create(String threadId, String projectId, String agentId, @Nullable String keyFamily) {
        create(threadId, projectId, agentId, keyFamily, Map.of());
    }

    /** @param metadata the first run's request metadata, kept with the thread */
    public void create(String threadId, String projectId, String agentId, @Nullable String keyFamily, Map<String, Object> metadata) {
        String key = RedisKeys.thread(threadId);
        var async = redis.async();
        async.hset(key, newThreadFields(projectId, agentId, keyFamily, metadata));
        redis.await(async.pexpire(key, settings.threadRetention().toMillis()), redis.commandTimeout(), "the new thread");
    }

    /**
     * A new thread, locked for {@code runId}, in one round trip. Not waited for: the caller sends its other writes
     * meanwhile and waits for this before anything depends on the thread (its run's command).
     */
    public PendingWrite createLocked(String threadId, String projectId, String agentId, @Nullable String keyFamily,
            Map<String, Object> metadata, String runId) {
        List<String> args = new ArrayList<>(lockArgs(runId, true));
        newThreadFields(projectId, agentId, keyFamily, metadata).forEach((name, value) -> {
            args.add(name);
            args.add(value);
        });
        CompletableFuture<Void> written = RunLibrary.LOCK_THREAD.<Long>callAlone(redis, ScriptOutputType.INTEGER,
                        lockThreadKeys(threadId), args.toArray(String[]::new))
                .thenAccept(locked -> {
                    if (locked != 1) {
                        throw new IllegalStateException("a new thread's lock was taken: thread ids collided");
                    }
                });
        return () -> redis.await(written, redis.commandTimeout(), "the new thread");
    }

    /** Writes sent and not waited for yet. */
    @FunctionalInterface
    public interface PendingWrite {
        PendingWrite NONE = () -> { };

        /** Waits for Redis to have applied them, as a sync call would: a failure is a {@code RedisException}. */
        void await();
    }

    Map<String, String> newThreadFields(String projectId, String agentId, @Nullable String keyFamily, Map<String, Object> metadata) {
        String now = Instant.now().toString();
        Map<String, String> fields = new java.util.HashMap<>(Map.of(PROJECT, projectId, AGENT, agentId, CREATED_AT, now, UPDATED_AT, now,
                METADATA, codec.write(metadata)));
        if (keyFamily != null) {
            fields.put(KEY_FAMILY, keyFamily);
        }
        return fields;
    }

    public Optional<ThreadInfo> find(String threadId) {
        Map<String, String> h = redis.sync().hgetall(RedisKeys.thread(threadId));
        if (h == null || !h.containsKey(PROJECT)) {
            return Optional.empty();
        }
        return Optional.of(new ThreadInfo(threadId, h.get(PROJECT), h.getOrDefault(AGENT, ""), h.get(KEY_FAMILY)));
    }

    /** Takes the thread for {@code runId} (one round trip); false when another run holds it. */
    public boolean tryLock(String threadId, String runId) {
        return RunLibrary.LOCK_THREAD.run(redis, lockThreadKeys(threadId), lockArgs(runId, false).toArray(String[]::new)) == 1;
    }

    private List<String> lockArgs(String runId, boolean create) {
        return List.of(runId, Long.toString(settings.threadLockTtl().toMillis()), Long.toString(settings.threadRetention().toMillis()),
                create ? "1" : "0", Long.toString(System.currentTimeMillis()));
    }

    private static String[] lockThreadKeys(String threadId) {
        return new String[] {RedisKeys.thread(threadId), RedisKeys.threadLock(threadId), RedisKeys.threadRuns(threadId)};
    }

    /**
     * Releases the thread if {@code runId} still holds it; the first waiting run takes it then.
     *
     * @return the run the thread was handed to, or empty (freed, or not held by {@code runId})
     */
    public Optional<String> unlock(String threadId, String runId) {
        String next = RunLibrary.RELEASE_THREAD.runValue(redis, lockKeys(threadId), runId,
                Long.toString(settings.threadLockTtl().toMillis()));
        return next == null || next.isEmpty() ? Optional.empty() : Optional.of(next);
    }

    /** Hands a free thread (its holder's lock expired, or its hand-over was lost) to its first waiting run, if any. */
    public Optional<String> handFreeThreadOn(String threadId) {
        return unlock(threadId, "");
    }

    /** Where a run stands when it asked for a thread: holding it, or waiting behind {@code holder}. */
    public record LockOrWait(int place, String holder) {
        public boolean holds() {
            return place == 0;
        }
    }

    /**
     * Takes the thread for {@code runId}, or, when another run holds it, queues {@code runId} to take it when that one
     * ends ({@code first}: ahead of any other waiting run).
     */
    public LockOrWait lockOrWait(String threadId, String runId, boolean first) {
        List<Object> reply = RunLibrary.LOCK_OR_WAIT.runList(redis, lockKeys(threadId), runId,
                Long.toString(settings.threadLockTtl().toMillis()), Long.toString(System.currentTimeMillis()),
                Long.toString(settings.threadRetention().toMillis()), first ? "front" : "back");
        return new LockOrWait(((Long) reply.get(0)).intValue(), String.valueOf(reply.get(1)));
    }

    /** Takes a run that never got the thread out of its waiting list (it was refused). */
    public void withdraw(String threadId, String runId) {
        redis.sync().lrem(RedisKeys.threadWaiting(threadId), 0, runId);
    }

    private static String[] lockKeys(String threadId) {
        return new String[] {RedisKeys.threadLock(threadId), RedisKeys.thread(threadId), RedisKeys.threadWaiting(threadId),
                RedisKeys.threadRuns(threadId)};
    }

    /**
     * Restarts the lock's time to live if {@code runId} still holds it (a worker starting the run). Not waited
     * for: it must not delay the run's first event, and a lost extension only shortens the lock's safety margin.
     */
    public java.util.concurrent.CompletionStage<Boolean> extendLock(String threadId, String runId) {
        return RunLibrary.EXTEND_THREAD_LOCK.<Long>callAlone(redis, ScriptOutputType.INTEGER,
                        new String[] {RedisKeys.threadLock(threadId)}, runId, Long.toString(settings.threadLockTtl().toMillis()))
                .thenApply(extended -> Long.valueOf(1L).equals(extended));
    }

    /**
     * A worker starting the run: the lock's time to live restarts, so time in the queue does not count against the run
     * ({@link #extendLock}) — unless the run was accepted moments ago. The lock it holds was taken (or handed to it) at
     * or after its acceptance for {@code thread-lock-ttl}, so a run younger than a tenth of that (at most 10 s) loses no
     * more than that of its lock, and the call (three Redis commands a run) is saved.
     */
    public java.util.concurrent.CompletionStage<Boolean> extendLockForStart(String threadId, String runId, Instant acceptedAt) {
        Duration fresh = settings.threadLockTtl().dividedBy(10);
        if (fresh.compareTo(FRESH_RUN) > 0) {
            fresh = FRESH_RUN;
        }
        if (Duration.between(acceptedAt, Instant.now()).compareTo(fresh) < 0) {
            return CompletableFuture.completedFuture(true);
        }
        return extendLock(threadId, runId);
    }

    /**
     * Keeps the thread's lock for a run that waits for a person until {@code until} (its deadline) and the usual
     * {@code thread-lock-ttl} after it: no other turn starts on the thread while it waits, however long.
     */
    public java.util.concurrent.CompletionStage<Boolean> extendLockUntil(String threadId, String runId, java.time.Instant until) {
        long ttl = Math.max(0, until.toEpochMilli() - System.currentTimeMillis()) + settings.threadLockTtl().toMillis();
        return RunLibrary.EXTEND_THREAD_LOCK.<Long>callAlone(redis, ScriptOutputType.INTEGER,
                new String[] {RedisKeys.threadLock(threadId)}, runId, Long.toString(ttl)).thenApply(extended -> Long.valueOf(1L).equals(extended));
    }

    public Optional<String> lockHolder(String threadId) {
        return Optional.ofNullable(redis.sync().get(RedisKeys.threadLock(threadId)));
    }

    /** The whole history, oldest first: what the next turn's model sees. */
    public List<ChatMessage> history(String threadId) {
        return decode(redis.sync().lrange(RedisKeys.threadMessages(threadId), 0, -1));
    }

    /** As {@link #history}, without waiting: a caller sends its other reads meanwhile (one round trip for all). */
    public CompletableFuture<List<ChatMessage>> historyAsync(String threadId) {
        return redis.async().lrange(RedisKeys.threadMessages(threadId), 0, -1).toCompletableFuture().thenApply(this::decode);
    }

    private List<ChatMessage> decode(List<String> messages) {
        return messages.stream().map(json -> codec.read(json, ChatMessage.class)).toList();
    }

    /** Deletes a thread that never got a run (its first command could not be sent). */
    public void delete(String threadId) {
        redis.sync().del(RedisKeys.thread(threadId), RedisKeys.threadMessages(threadId), RedisKeys.threadLock(threadId),
                RedisKeys.threadRuns(threadId));
    }

    /** What a thread's owner may read about it: times, active run, size of its history, its first run's metadata. */
    public Optional<ThreadDetails> details(String threadId) {
        Map<String, String> h = redis.sync().hgetall(RedisKeys.thread(threadId));
        if (h == null || !h.containsKey(PROJECT)) {
            return Optional.empty();
        }
        long messages = redis.sync().llen(RedisKeys.threadMessages(threadId));
        @SuppressWarnings("unchecked")
        Map<String, Object> metadata = h.containsKey(METADATA) ? codec.read(h.get(METADATA), Map.class) : Map.of();
        return Optional.of(new ThreadDetails(
                new ThreadInfo(threadId, h.get(PROJECT), h.getOrDefault(AGENT, ""), h.get(KEY_FAMILY)),
                instant(h.get(CREATED_AT)), instant(h.getOrDefault(UPDATED_AT, h.get(CREATED_AT))),
                lockHolder(threadId).orElse(null), messages, metadata));
    }

    /**
     * Up to {@code limit} messages of the history ending before position {@code before} (exclusive; the
     * history's length for its end), oldest first, with the position of the first one returned.
     */
    public MessageSlice messages(String threadId, long before, int limit) {
        String key = RedisKeys.threadMessages(threadId);
        long end = Math.min(before, redis.sync().llen(key));
        long start = Math.max(0, end - limit);
        List<ChatMessage> messages = end <= 0 ? List.of() : redis.sync().lrange(key, start, end - 1).stream()
                .map(json -> codec.read(json, ChatMessage.class))
                .toList();
        return new MessageSlice(messages, start);
    }

    /** A slice of a thread's history and the position of its first message. */
    public record MessageSlice(List<ChatMessage> messages, long firstPosition) {
    }

    /**
     * Up to {@code limit} run ids of the thread, newest first, created before {@code beforeMs} (exclusive) or,
     * at {@code beforeMs} itself, ordered before {@code beforeRunId}.
     */
    public List<ScoredValue<String>> runs(String threadId, long beforeMs, String beforeRunId, int limit) {
        return RunIndexes.newestBefore(redis, RedisKeys.threadRuns(threadId), -1, beforeMs, beforeRunId, limit);
    }

    /** Every run id the thread's index holds, oldest first. */
    public List<String> runIds(String threadId) {
        return redis.sync().zrange(RedisKeys.threadRuns(threadId), 0, -1);
    }

    private static Instant instant(@Nullable String text) {
        return text == null ? Instant.EPOCH : Instant.parse(text);
    }
}
