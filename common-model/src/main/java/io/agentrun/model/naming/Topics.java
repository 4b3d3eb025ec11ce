package io.agentrun.model.naming;

/**
 * Default Kafka topic and group names. Deployments may rename them through configuration
 * ({@code agentrun.kafka.*}); these are the names everything uses when nothing says otherwise.
 */
public final class Topics {

    /** Run commands, key = thread id (one-off runs: run id), consumed by workers through a share group. */
    public static final String RUN_COMMANDS = "agentrun.run-commands";
    /** Every event of every run, key = thread id, so a thread's events are totally ordered on one partition. */
    public static final String THREAD_EVENTS = "agentrun.thread-events";
    /** The share group workers consume {@link #RUN_COMMANDS} through. */
    public static final String WORKER_SHARE_GROUP = "agentrun-workers";
    /** The consumer group relays consume {@link #THREAD_EVENTS} in. */
    public static final String RELAY_GROUP = "agentrun-relays";

    /**
     * Header of every event record: the event's type ({@code run_end}, …), so a consumer that wants only some types
     * (the webhook trigger wants run_ends) skips the rest without decoding them. Records written before it existed
     * have none: read their type from the value.
     */
    public static final String EVENT_TYPE_HEADER = "ar-event-type";

    private Topics() {
    }

    /** The record key of a run's command and events: its thread, so a thread stays ordered; a one-off run's own id. */
    public static String partitionKey(@org.jspecify.annotations.Nullable String threadId, String runId) {
        return threadId != null ? threadId : runId;
    }
}
