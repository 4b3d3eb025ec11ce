package io.agentrun.model.naming;

/**
 * Every Redis key and pub/sub channel name, in one place.
 *
 * <p>Ids are wrapped in braces on purpose: in Redis Cluster the part inside {@code {…}} is the hash
 * tag, so all keys of one thread (hash, history, lock) share a slot and can be updated by one script,
 * and likewise all keys of one run.
 */
public final class RedisKeys {

    private static final String PREFIX = "ar:";

    private RedisKeys() {
    }

    /** Hash: project, agent, created/updated, active run. */
    public static String thread(String threadId) {
        return PREFIX + "thread:{" + threadId + "}";
    }

    /** List: the thread's conversation history, one JSON {@code ChatMessage} per entry. */
    public static String threadMessages(String threadId) {
        return thread(threadId) + ":messages";
    }

    /** Sorted set: the thread's run ids, scored by creation time (ms); written by the api and by the relay at run_start. */
    public static String threadRuns(String threadId) {
        return thread(threadId) + ":runs";
    }

    /**
     * Hash (24 h): an idempotency key's record — the request's fingerprint and the run it started. Tagged by
     * the digest of project, credential family and key, so records spread over a cluster's slots.
     */
    public static String idempotency(String scopedKeyDigest) {
        return PREFIX + "idem:{" + scopedKeyDigest + "}";
    }

    /** String (JSON {@code ThreadDeleted}, kept as long as a thread): the thread was deleted; late events of it are ignored. */
    public static String threadDeleted(String threadId) {
        return thread(threadId) + ":deleted";
    }

    /** List: runs accepted with {@code if_busy=enqueue|interrupt}, waiting for the thread in order; the head goes next. */
    public static String threadWaiting(String threadId) {
        return thread(threadId) + ":waiting";
    }

    /** String (NX + TTL): the run that currently holds the thread. */
    public static String threadLock(String threadId) {
        return thread(threadId) + ":lock";
    }

    /**
     * Sorted set: a project's run ids, scored by creation time (ms), newest kept (trimmed to the run retention and a cap);
     * written with the run's record by the api ({@code start_run}): {@code GET /api/v1/runs}. Tagged by the project, so
     * a cluster spreads projects over slots (a run's start writes it in a call of its own there).
     */
    public static String projectRuns(String projectId) {
        return PREFIX + "project:{" + projectId + "}:runs";
    }

    /** Hash: status, project, thread, agent, attempt, worker, timestamps, Kafka position of run_start. */
    public static String run(String runId) {
        return PREFIX + "run:{" + runId + "}";
    }

    /**
     * Sorted set: run id → epoch millis when a worker's sweeper should look at the run next (its lease deadline,
     * or when an unclaimed command is due to be produced again). An index only: the run's hash decides. One per
     * commands topic: the workers of that topic sweep it (deployments sharing a Redis stay apart).
     */
    public static String runsDue(String commandsTopic) {
        return PREFIX + "runs:due:" + commandsTopic;
    }

    /** Stream (capped, TTL after run_end): the resume buffer; entry id {@code {seq}-1}, field {@code e}. */
    public static String runEvents(String runId) {
        return run(runId) + ":events";
    }

    /**
     * Shard channel: the live events of every run one api node watches (one subscription per node, not one per run).
     * A message is {@code LiveMessage}'s format: envelopes one per line, of any runs, each optionally preceded by the
     * relay's W3C {@code traceparent}. The hash tag is the node's id, so in a Redis Cluster each node's channel lives
     * on one shard, and different nodes' channels spread over the shards.
     */
    public static String nodeChannel(String nodeId) {
        return PREFIX + "node:{" + nodeId + "}";
    }

    /**
     * String with a short TTL: an api node is alive while it renews this ({@code ApiNodeLeases}). A sweeper ends a run
     * whose creating node let it lapse before the run's command was confirmed; a node whose key may have lapsed asks the
     * run before answering its client.
     */
    public static String apiNodeAlive(String nodeId) {
        return PREFIX + "node:{" + nodeId + "}:alive";
    }

    /**
     * Set: the api nodes that joined a run's events after it was created (the creating node is the run hash's
     * {@code node} field). The relay publishes what it applied of the run to each of them.
     */
    public static String runWatchers(String runId) {
        return run(runId) + ":watchers";
    }

    /** Pub/sub channel and flag key: a request to cancel one run. */
    public static String cancel(String runId) {
        return PREFIX + "cancel:{" + runId + "}";
    }

    /** Pattern matching every {@link #cancel(String)} channel, for workers. */
    public static String cancelPattern() {
        return PREFIX + "cancel:*";
    }

    /** Extracts the run id from a {@link #cancel(String)} channel name. */
    public static String runIdOfCancelChannel(String channel) {
        return channel.substring(channel.indexOf('{') + 1, channel.lastIndexOf('}'));
    }

    /** Hash: a credential, looked up by the SHA-256 hex of the presented key. */
    public static String apiKey(String keyHashHex) {
        return PREFIX + "key:" + keyHashHex;
    }

    /** Hash: a project's key index, key id → SHA-256 hex of the key. */
    public static String projectKeys(String projectId) {
        return project(projectId) + ":keys";
    }

    /** Pub/sub channel: a key was revoked, rotated or changed (message: its hash hex); nodes drop it from their caches. */
    public static String keysChanged() {
        return PREFIX + "keys:changed";
    }

    /** Hash: publishable key id → JSON of its allowed origins, for CORS preflights (which carry no key). */
    public static String publishableOrigins() {
        return PREFIX + "origins";
    }

    /** String (token bucket): requests of one publishable key, or with {@code ip} of one client of it. */
    public static String rateBucket(String keyId, String ip) {
        return PREFIX + "rl:{" + keyId + "}" + (ip.isEmpty() ? "" : ":ip:" + ip);
    }

    /** Hash: runs and tokens a publishable key family spent on one UTC day ({@code yyyy-mm-dd}). */
    public static String spend(String keyFamily, String day) {
        return PREFIX + "spend:{" + keyFamily + "}:" + day;
    }

    /** Set: runs whose tokens {@link #spend} already counted, so a replayed run_end is not counted twice. */
    public static String spendCounted(String keyFamily, String day) {
        return spend(keyFamily, day) + ":counted";
    }

    /** Set: every project id. */
    public static String projects() {
        return PREFIX + "projects";
    }

    /** Set: the agent ids of a project. */
    public static String projectAgents(String projectId) {
        return project(projectId) + ":agents";
    }

    /** Set: the context ids of a project. */
    public static String projectContexts(String projectId) {
        return project(projectId) + ":contexts";
    }

    /** Hash: a project. */
    public static String project(String projectId) {
        return PREFIX + "project:" + projectId;
    }

    /** String: one context document of a project, as JSON. */
    public static String context(String projectId, String contextId) {
        return PREFIX + "context:" + projectId + ":" + contextId;
    }

    /** String: one agent definition of a project, as JSON. */
    public static String agent(String projectId, String agentId) {
        return PREFIX + "agent:" + projectId + ":" + agentId;
    }

    /** Hash: a project's webhook endpoints, endpoint id → endpoint JSON (no secret). */
    public static String webhookEndpoints(String projectId) {
        return project(projectId) + ":webhooks";
    }

    /** Hash: a project's MCP servers, server id → the server's JSON with its headers sealed. */
    public static String mcpServers(String projectId) {
        return project(projectId) + ":mcp-servers";
    }

    /** Hash: an endpoint's signing secrets, encrypted ({@code current}, and {@code previous} until {@code previous_until}). */
    public static String webhookSecrets(String endpointId) {
        return "ar:webhook:{" + endpointId + "}:secrets";
    }

    /** Sorted set: an endpoint's deliveries by creation time (ms), the newest kept. */
    public static String webhookDeliveries(String endpointId) {
        return "ar:webhook:{" + endpointId + "}:deliveries";
    }

    /** Hash: one delivery (one event for one endpoint): what to send, its status and attempt count. */
    public static String webhookDelivery(String deliveryId) {
        return "ar:whd:{" + deliveryId + "}";
    }

    /** List: a delivery's attempts, oldest first (JSON each). */
    public static String webhookDeliveryAttempts(String deliveryId) {
        return webhookDelivery(deliveryId) + ":attempts";
    }

    /** Sorted set: deliveries by when their next attempt is due (ms); a dispatcher takes a due one by moving it on. */
    public static String webhooksDue() {
        return "ar:webhooks:due";
    }

    /**
     * Sorted set: the service nodes writing pipeline snapshots ({@code <service>:<node>:<instance>}), scored by when each
     * wrote last (ms); each writer drops the members silent past the snapshots' TTL.
     */
    public static String pipelineNodes() {
        return PREFIX + "pipeline:nodes";
    }

    /**
     * List (capped, short TTL): one service node's snapshots of its own meters ({@code NodeSample} JSON), newest first;
     * gone a few intervals after the node stops writing.
     */
    public static String pipelineSamples(String member) {
        return PREFIX + "pipeline:" + member;
    }
}
