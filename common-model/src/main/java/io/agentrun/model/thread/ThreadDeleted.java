package io.agentrun.model.thread;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The record of a thread's deletion, written to the events topic keyed by the thread (so after all of its
 * events) with the header {@value #KIND_HEADER}: {@value #KIND}. Whoever rebuilds state or replays the topic
 * meets it after the thread's events and deletes, or hides, them. It says who deleted the thread and when,
 * nothing of what it held.
 *
 * @param deletedBy the credential's label (a key's label, a session's subject), never the credential
 * @param runIds the thread's runs when it was deleted: whoever applies the record deletes their content even when
 *     it cannot list them from Redis (a rebuild that finds the thread's tombstone already there skips the thread
 *     script, which is what indexes runs)
 */
public record ThreadDeleted(String threadId, String projectId, String deletedBy, Instant deletedAt, List<String> runIds) {

    public static final String KIND_HEADER = "agentrun-kind";
    public static final String KIND = "thread_deleted";

    public ThreadDeleted {
        Objects.requireNonNull(threadId, "threadId");
        Objects.requireNonNull(projectId, "projectId");
        Objects.requireNonNull(deletedBy, "deletedBy");
        Objects.requireNonNull(deletedAt, "deletedAt");
        runIds = runIds == null ? List.of() : List.copyOf(runIds);
    }
}
