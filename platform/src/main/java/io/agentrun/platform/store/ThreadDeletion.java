package io.agentrun.platform.store;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.model.thread.ThreadDeleted;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Deletes a thread from Redis: its hash, history, lock and runs index (and its runs from its project's), and of each of its runs the resume
 * buffer and every field that holds content (input, output and its JSON, error text, usage, a waiting run's checkpoint,
 * the call it waits on and a decision's reason); a run not ended (waiting included) ends cancelled
 * ({@code thread_deleted}). What is left of a run says it
 * was deleted, so that a late event of it (a cancelled run's last words) and a late claim find nothing to do. A
 * tombstone on the thread does the same for the thread script. Idempotent: the api applies it when the thread is
 * deleted, the relay again when it reads the deletion's record, and a rebuild when it reaches it.
 */
public final class ThreadDeletion {

    private final JsonCodec codec;
    private final StateSettings settings;

    public ThreadDeletion(JsonCodec codec, StateSettings settings) {
        this.codec = codec;
        this.settings = settings;
    }

    /**
     * @param redis the connection to apply it on: the relay's and the rebuild's own, so it falls in order between
     *     the batches around it
     * @return the ids of the runs whose content was deleted
     */
    public CompletableFuture<List<String>> apply(RedisClusterAsyncCommands<String, String> redis, ThreadDeleted deleted) {
        String threadId = deleted.threadId();
        String[] keys = {RedisKeys.thread(threadId), RedisKeys.threadMessages(threadId), RedisKeys.threadLock(threadId),
                RedisKeys.threadRuns(threadId), RedisKeys.threadDeleted(threadId), RedisKeys.threadWaiting(threadId)};
        return RunLibrary.DELETE_THREAD.callList(redis, keys, codec.write(deleted), Long.toString(settings.threadRetention().toMillis()))
                .thenCompose(reply -> {
                    List<String> indexed = reply.stream().map(String::valueOf).toList();
                    Set<String> runIds = new LinkedHashSet<>(deleted.runIds());
                    runIds.addAll(indexed);
                    return deleteRuns(redis, deleted.projectId(), List.copyOf(runIds));
                });
    }

    private static CompletableFuture<List<String>> deleteRuns(RedisClusterAsyncCommands<String, String> redis, String projectId,
            List<String> runIds) {
        List<CompletableFuture<?>> deletes = new ArrayList<>();
        for (String runId : runIds) {
            deletes.add(RunLibrary.DELETE_RUN.call(redis, new String[] {RedisKeys.run(runId), RedisKeys.runEvents(runId)}));
        }
        if (!runIds.isEmpty()) {
            // (its project's list would skip them anyway, 'deleted'; out of the index, they take no place in its pages)
            deletes.add(redis.zrem(RedisKeys.projectRuns(projectId), runIds.toArray(String[]::new)).toCompletableFuture());
        }
        return CompletableFuture.allOf(deletes.toArray(CompletableFuture[]::new)).thenApply(done -> runIds);
    }
}
