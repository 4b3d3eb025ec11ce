package io.agentrun.platform.store;

import io.agentrun.model.command.RunCommand;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.event.Usage;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.model.naming.Topics;
import io.agentrun.platform.redis.RedisConnections;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * Run state in {@code ar:run:{id}}. The api node creates it ({@code queued}), the relay moves it along
 * as events pass, and the worker marks it finished as soon as its run_end is in Kafka, so a redelivered
 * command never runs a finished run again even if the relay lags.
 */
public final class RunStore {


    /**
     * The run hash's fields, every one of them: the api, the workers' claim, lease and sweep scripts
     * ({@link RunOwnership}) and the relay's scripts (event-state) write these names and no other
     * ({@code RunStateOwnerTest} reads the library to hold it to them).
     */
    public static final String STATUS = "status";
    public static final String PROJECT = "project_id";
    public static final String THREAD = "thread_id";
    public static final String AGENT = "agent_id";
    public static final String MODE = "mode";
    public static final String ATTEMPT = "attempt";
    public static final String WORKER = "worker";
    /** Who holds the run's lease now ({@code ""} once handed back or ended), in which epoch, until when (epoch ms). */
    public static final String OWNER = "owner";
    public static final String EPOCH = "epoch";
    public static final String LEASE_UNTIL = "lease_until";
    public static final String CLAIMED_AT = "claimed_at";
    /** When a sweeper may produce the run's command again (epoch ms), and how often it has. */
    public static final String REQUEUE_AT = "requeue_at";
    public static final String REQUEUES = "requeues";
    public static final String LAST_SEQ = "last_seq";
    public static final String END_SEQ = "end_seq";
    public static final String START_PARTITION = "start_partition";
    public static final String START_OFFSET = "start_offset";
    public static final String FIRST_OFFSET = "first_offset";
    public static final String OUTPUT = "output";
    public static final String OUTPUT_JSON = "output_json";
    public static final String ERROR_CODE = "error_code";
    public static final String ERROR_MESSAGE = "error_message";
    public static final String CREATED_AT = "created_at";
    public static final String ENDED_AT = "ended_at";
    public static final String STARTED_AT = "started_at";
    /** The first attempt's run_start (the run's first event), written with it once: the run's time to first event. */
    public static final String FIRST_EVENT_AT = "first_event_at";
    /** Tokens of the whole run (JSON {@code Usage}), written with run_end. */
    public static final String USAGE = "usage";
    /** Set when the run's thread was deleted ({@code ThreadDeletion}). */
    public static final String DELETED = "deleted";
    /** A waiting run's approval_required data, without the checkpoint (written by the relay). */
    public static final String APPROVAL = "approval";
    /** The tool call a run waits for a decision on (relay, and the worker's park), and until when (ms). */
    public static final String APPROVAL_CALL = "approval_call";
    public static final String APPROVAL_DEADLINE = "approval_deadline";
    /** Where a paused run goes on from (JSON, from its approval_required; dropped at run_end). */
    public static final String CHECKPOINT = "checkpoint";
    /** The decision on the call (api, sweeper at the deadline; relay from approval_decided). */
    public static final String DECISION = "decision";
    public static final String DECISION_REASON = "decision_reason";
    public static final String DECIDED_BY = "decided_by";
    public static final String DECIDED_AT = "decided_at";
    /** Claims that resumed a paused run (not attempts), and the call the last one resumed it from. */
    public static final String RESUMES = "resumes";
    public static final String RESUMED_FOR = "resumed_for";
    public static final String KEY_FAMILY = "key_family";
    /** The run's command as JSON, so a sweeper can produce it again should it be lost before a worker claimed it. */
    public static final String COMMAND = "command";
    public static final String CREATED_MS = "created_ms";
    /** Set once an api node saw Kafka acknowledge the run's command: only then may a sweeper produce it again. */
    public static final String SENT = "sent";
    /**
     * The api node that created the run and watches its events live (absent for runs nobody streams: background
     * runs); nodes that join later are in {@code RedisKeys.runWatchers}.
     */
    public static final String NODE = "node";
    /** "1" once another api node joined the run ({@code watch_run}): the relay looks its watchers up only then. */
    public static final String WATCHED = "watched";
    /** The due index the run belongs in (its deployment's commands topic): where an index repair puts it back. */
    public static final String DUE_INDEX = "due_index";
    /** The api node that recorded the run and confirms or refuses its command ({@link ApiNodeLeases}). */
    public static final String CREATOR = "creator";
    /** Set when a sweeper ended the run because its creator died before confirming it: the creator may not accept it. */
    public static final String ABANDONED = "abandoned";
    /** "1" while the run waits for its thread ({@code if_busy=enqueue|interrupt}); its command is not produced yet. */
    public static final String WAITING = "waiting";

    private final RedisConnections redis;
    private final StateSettings settings;
    private final JsonCodec codec;
    private final String dueIndex;

    /** For reading run state (and tests on the default topic). */
    public RunStore(RedisConnections redis, StateSettings settings) {
        this(redis, settings, new JsonCodec(), Topics.RUN_COMMANDS);
    }

    /** @param commandsTopic where this service's run commands go: the due index its runs are put in */
    public RunStore(RedisConnections redis, StateSettings settings, JsonCodec codec, String commandsTopic) {
        this.dueIndex = RedisKeys.runsDue(commandsTopic);
        this.redis = redis;
        this.settings = settings;
        this.codec = codec;
    }

    public void createQueued(RunCommand command) {
        createQueued(command, null);
    }

    /**
     * Records the run {@code queued}, with its command, and puts it in the due index: should the command be
     * lost before a worker claims it, a sweeper produces it again after {@code claim-timeout}. The index entry
     * goes first, so a run is never in Redis without it.
     *
     * @param keyFamily the publishable key family whose daily spend the run's tokens count against
     */
    public void createQueued(RunCommand command, @Nullable String keyFamily) {
        createQueued(command, keyFamily, false);
    }

    /**
     * @param waiting the run waits for its thread: its command is produced when the thread is handed to it
     *     ({@link #promote}), and until then no sweeper produces or fails it
     */
    public void createQueued(RunCommand command, @Nullable String keyFamily, boolean waiting) {
        createQueued(command, keyFamily, waiting, null, null);
    }

    /**
     * @param watcher the api node that streams the run's events to its client, {@code null} when none does
     * @param creator the api node recording the run, which confirms its command ({@link #confirmSentAll}) or refuses it:
     *     should it die first, a sweeper ends the run once the node's lease is gone ({@link ApiNodeLeases}), and looks
     *     at the run from {@link ApiNodeLeases#TTL} on for that; {@code null}: only the start timeout ends it
     */
    public void createQueued(RunCommand command, @Nullable String keyFamily, boolean waiting, @Nullable String watcher,
            @Nullable String creator) {
        Map<String, String> fields = queuedFields(command, keyFamily, watcher, creator);
        if (waiting) {
            fields.put(WAITING, "1");
        }
        // One round trip: a connection's commands apply in order, so the index entry is in before the hash. The project's
        // runs index is in another slot on a cluster: its own call, in the same round trip.
        var async = redis.async();
        async.zadd(dueIndex, (double) firstLook(command, creator), command.runId());
        async.hset(RedisKeys.run(command.runId()), fields);
        var expiry = async.pexpire(RedisKeys.run(command.runId()), settings.runRetention().toMillis());
        RunLibrary.LIBRARY.retryingIfNotLoaded(redis, () -> {
            redis.await(RunLibrary.INDEX_PROJECT_RUN.call(async, new String[] {RedisKeys.projectRuns(command.projectId())},
                    command.runId(), Long.toString(command.createdAt().toEpochMilli()),
                    Long.toString(settings.runRetention().toMillis()), Long.toString(settings.projectRunsMax())),
                    redis.commandTimeout(), "the run's listing");
            return true;
        });
        redis.await(expiry, redis.commandTimeout(), "the run's record");
    }

    /** A queued run's fields: what the api records (a waiting run adds {@link #WAITING}). */
    Map<String, String> queuedFields(RunCommand command, @Nullable String keyFamily, @Nullable String watcher,
            @Nullable String creator) {
        Map<String, String> fields = new java.util.HashMap<>(Map.of(
                STATUS, RunStatus.QUEUED.wireName(),
                PROJECT, command.projectId(),
                AGENT, command.agentId(),
                MODE, command.mode().name().toLowerCase(java.util.Locale.ROOT),
                LAST_SEQ, "-1",
                CREATED_AT, command.createdAt().toString(),
                CREATED_MS, Long.toString(command.createdAt().toEpochMilli()),
                DUE_INDEX, dueIndex,
                COMMAND, new String(codec.encode(command), java.nio.charset.StandardCharsets.UTF_8)));
        if (command.threadId() != null) {
            fields.put(THREAD, command.threadId());
        }
        if (keyFamily != null) {
            fields.put(KEY_FAMILY, keyFamily);
        }
        if (watcher != null) {
            fields.put(NODE, watcher);
        }
        if (creator != null) {
            fields.put(CREATOR, creator);
        }
        return fields;
    }

    /**
     * When a sweeper first looks at a new run (epoch ms): after {@code claim-timeout}, or after an api node's lease TTL
     * when a node created it (to end it soon should that node die before confirming it).
     */
    long firstLook(RunCommand command, @Nullable String creator) {
        java.time.Duration firstLook = settings.claimTimeout();
        if (creator != null && ApiNodeLeases.TTL.compareTo(firstLook) < 0) {
            firstLook = ApiNodeLeases.TTL;
        }
        return command.createdAt().plus(firstLook).toEpochMilli();
    }

    String dueIndex() {
        return dueIndex;
    }

    public Optional<RunState> find(String runId) {
        return state(runId, redis.sync().hgetall(RedisKeys.run(runId)));
    }

    /** The fields a list of runs reads: a run's state without its output (nor the command and checkpoint it keeps). */
    private static final String[] LISTED = {STATUS, PROJECT, THREAD, AGENT, ATTEMPT, LAST_SEQ, END_SEQ, START_PARTITION,
            START_OFFSET, FIRST_OFFSET, WORKER, ERROR_CODE, ERROR_MESSAGE, CREATED_AT, MODE, KEY_FAMILY, STARTED_AT, ENDED_AT,
            FIRST_EVENT_AT, USAGE, DELETED, APPROVAL};

    /**
     * Runs as a list shows them, in one round trip (an {@code HMGET} each, pipelined): without {@link #OUTPUT} and
     * {@link #OUTPUT_JSON} (empty and null here), which a run's own read has. Empty where Redis has no such run.
     */
    public List<Optional<RunState>> findListed(List<String> runIds) {
        var async = redis.async();
        List<io.lettuce.core.RedisFuture<List<io.lettuce.core.KeyValue<String, String>>>> replies = new java.util.ArrayList<>();
        for (String runId : runIds) {
            replies.add(async.hmget(RedisKeys.run(runId), LISTED));
        }
        redis.await(java.util.concurrent.CompletableFuture.allOf(replies.stream().map(io.lettuce.core.RedisFuture::toCompletableFuture)
                .toArray(java.util.concurrent.CompletableFuture[]::new)), redis.commandTimeout(), "the runs' states");
        List<Optional<RunState>> states = new java.util.ArrayList<>(runIds.size());
        for (int i = 0; i < runIds.size(); i++) {
            Map<String, String> h = new java.util.HashMap<>();
            replies.get(i).toCompletableFuture().join().forEach(field -> field.ifHasValue(value -> h.put(field.getKey(), value)));
            states.add(state(runIds.get(i), h));
        }
        return states;
    }

    private Optional<RunState> state(String runId, @Nullable Map<String, String> h) {
        if (h == null || h.isEmpty() || !h.containsKey(STATUS)) {
            return Optional.empty();
        }
        return Optional.of(new RunState(
                runId,
                RunStatus.fromWireName(h.get(STATUS)),
                h.getOrDefault(PROJECT, ""),
                h.get(THREAD),
                h.getOrDefault(AGENT, ""),
                Integer.parseInt(h.getOrDefault(ATTEMPT, "0")),
                Long.parseLong(h.getOrDefault(LAST_SEQ, "-1")),
                Long.parseLong(h.getOrDefault(END_SEQ, "-1")),
                Integer.parseInt(h.getOrDefault(START_PARTITION, "-1")),
                Long.parseLong(h.getOrDefault(START_OFFSET, "-1")),
                Long.parseLong(h.getOrDefault(FIRST_OFFSET, "-1")),
                h.getOrDefault(OUTPUT, ""),
                h.get(OUTPUT_JSON) == null ? null : codec.mapper().readTree(h.get(OUTPUT_JSON)),
                h.get(WORKER),
                h.get(ERROR_CODE),
                h.get(ERROR_MESSAGE),
                h.containsKey(CREATED_AT) ? Instant.parse(h.get(CREATED_AT)) : Instant.EPOCH,
                h.get(MODE),
                h.get(KEY_FAMILY),
                instantOrNull(h.get(STARTED_AT)),
                instantOrNull(h.get(ENDED_AT)),
                instantOrNull(h.get(FIRST_EVENT_AT)),
                h.get(USAGE) == null || h.get(USAGE).isEmpty() ? null : codec.read(h.get(USAGE), Usage.class),
                h.containsKey(DELETED),
                RunStatus.WAITING.wireName().equals(h.get(STATUS)) && h.get(APPROVAL) != null ? pendingApproval(h.get(APPROVAL)) : null));
    }

    /** Who ran the run, as its record says (the latest claim and the lease now): what an operator's read adds. */
    public io.agentrun.model.read.OperatorRunView.Ownership ownership(String runId) {
        List<String> h = redis.sync().hmget(RedisKeys.run(runId), WORKER, EPOCH, OWNER, LEASE_UNTIL, CLAIMED_AT, RESUMES, REQUEUES)
                .stream().map(field -> field.getValueOrElse(null)).toList();
        return new io.agentrun.model.read.OperatorRunView.Ownership(h.get(0), (int) number(h.get(1)),
                h.get(2) == null || h.get(2).isEmpty() ? null : h.get(2), millis(h.get(3)), millis(h.get(4)), (int) number(h.get(5)),
                (int) number(h.get(6)));
    }

    private static long number(@Nullable String text) {
        return text == null || text.isEmpty() ? 0 : Long.parseLong(text);
    }

    private static @Nullable Instant millis(@Nullable String text) {
        return number(text) <= 0 ? null : Instant.ofEpochMilli(number(text));
    }

    /** A waiting run's approval_required data as a read shows it: the call, its arguments, the deadline, who decides. */
    private JsonNode pendingApproval(String approvalJson) {
        JsonNode approval = codec.mapper().readTree(approvalJson);
        if (approval instanceof tools.jackson.databind.node.ObjectNode object) {
            object.remove("checkpoint");
        }
        return approval;
    }

    /** The command the run was created with (kept in its hash for the sweeper): what a repeated request joins. */
    public Optional<RunCommand> command(String runId) {
        String json = redis.sync().hget(RedisKeys.run(runId), COMMAND);
        return json == null ? Optional.empty() : Optional.of(codec.decodeCommand(json.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    private static @Nullable Instant instantOrNull(@Nullable String text) {
        return text == null || text.isEmpty() ? null : Instant.parse(text);
    }

    /**
     * The run's command is in Kafka (its send was acknowledged). Not waited for: should it not land (Redis
     * down right now), a sweeper will not produce the command again should it be lost, and the run ends
     * {@code not_started} instead — it is never produced without proof that it was accepted.
     */
    /** What {@link #promote} found. */
    public sealed interface Promotion {
        /** The run stopped waiting now: produce {@code commandJson}. */
        record Promoted(String commandJson) implements Promotion {
        }

        /** Another caller promoted it already (its command is on its way), or it never waited. */
        record NotWaiting() implements Promotion {
        }

        /** It ended (refused while it waited, cancelled) or is gone: pass the thread on. */
        record Ended() implements Promotion {
        }
    }

    /**
     * A waiting run was handed its thread: it stops waiting, counts as accepted and sent from now (so a sweeper
     * produces its command again should this send be lost, and its start timeout counts from now). Exactly one caller
     * gets {@link Promotion.Promoted} for a run.
     */
    public Promotion promote(String runId) {
        long now = System.currentTimeMillis();
        List<Object> reply = RunLibrary.PROMOTE.runList(redis, new String[] {RedisKeys.run(runId)}, Long.toString(now));
        String outcome = (String) reply.get(0);
        return switch (outcome) {
            case "promoted" -> {
                redis.sync().zadd(dueIndex, (double) now + settings.claimTimeout().toMillis(), runId);
                yield new Promotion.Promoted((String) reply.get(1));
            }
            case "started" -> new Promotion.NotWaiting();
            default -> new Promotion.Ended();
        };
    }

    /** A run created waiting got its thread at once: it is produced like any other run. */
    public void stopWaiting(String runId) {
        redis.sync().hdel(RedisKeys.run(runId), WAITING);
    }

    /**
     * {@link #confirmSent} for many runs, pipelined (one round trip): what an api node does for the runs it produced a
     * while ago that no event has shown claimed yet.
     *
     * @return the runs a sweeper abandoned meanwhile (their creator looked dead): each ends {@code not_queued}
     * @throws io.lettuce.core.RedisException when Redis did not answer
     */
    public List<String> confirmSentAll(List<String> runIds) {
        var async = redis.async();
        List<java.util.concurrent.CompletableFuture<Long>> replies = RunLibrary.LIBRARY.retryingIfNotLoaded(redis, () -> {
            List<java.util.concurrent.CompletableFuture<Long>> sent = new java.util.ArrayList<>(runIds.size());
            for (String runId : runIds) {
                sent.add(RunLibrary.CONFIRM_SENT.call(async, new String[] {RedisKeys.run(runId)}));
            }
            redis.await(java.util.concurrent.CompletableFuture.allOf(sent.toArray(java.util.concurrent.CompletableFuture[]::new)),
                    redis.commandTimeout(), "the runs' confirmations");
            return sent;
        });
        List<String> abandoned = new java.util.ArrayList<>();
        for (int i = 0; i < runIds.size(); i++) {
            if (replies.get(i).join() != 1L) {
                abandoned.add(runIds.get(i));
            }
        }
        return abandoned;
    }

    /**
     * Marks the run {@code sent} unless a sweeper abandoned it (its creator looked dead: {@link ApiNodeLeases}), in one
     * step: what an api node does when its lease may have lapsed while it sent the command.
     *
     * @return false when abandoned: the run is being ended {@code not_queued} and must be refused to its client
     * @throws io.lettuce.core.RedisException when Redis did not answer
     */
    public boolean confirmSent(String runId) {
        return confirmSentAll(List.of(runId)).isEmpty();
    }

    /**
     * Redis lost the run (its data, or the run outlived its retention) but its command arrived: records it
     * again, so it can be claimed and its events applied. Changes nothing when the run exists.
     */
    public void recreate(RunCommand command) {
        String key = RedisKeys.run(command.runId());
        if (redis.sync().hsetnx(key, STATUS, RunStatus.QUEUED.wireName())) {
            createQueued(command, null);
        }
    }

    /** The key a run's events are written under: its thread, or itself for one-off runs. */
    public static String partitionKey(RunState state) {
        return Topics.partitionKey(state.threadId(), state.runId());
    }
}
