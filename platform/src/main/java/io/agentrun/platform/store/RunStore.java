package io.agentrun.platform.store;

import io.agentrun.model.command.RunCommand;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.model.naming.Topics;
import io.agentrun.platform.redis.RedisConnections;
import io.lettuce.core.ScriptOutputType;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Run state in {@code ar:run:{id}}. The api node creates it ({@code queued}), the relay moves it along
 * as events pass, and the worker marks it finished as soon as its run_end is in Kafka, so a redelivered
 * command never runs a finished run again even if the relay lags.
 */
public final class RunStore {

    /** Hash fields; the relay's scripts write the same names. */
    public static final String STATUS = "status";
    public static final String PROJECT = "project_id";
    public static final String THREAD = "thread_id";
    public static final String AGENT = "agent_id";
    public static final String MODE = "mode";
    public static final String ATTEMPT = "attempt";
    public static final String WORKER = "worker";
    public static final String LAST_SEQ = "last_seq";
    public static final String END_SEQ = "end_seq";
    public static final String START_PARTITION = "start_partition";
    public static final String START_OFFSET = "start_offset";
    public static final String FIRST_OFFSET = "first_offset";
    public static final String OUTPUT = "output";
    public static final String ERROR_CODE = "error_code";
    public static final String ERROR_MESSAGE = "error_message";
    public static final String CREATED_AT = "created_at";
    public static final String ENDED_AT = "ended_at";
    public static final String KEY_FAMILY = "key_family";

    private final RedisConnections redis;
    private final StateSettings settings;

    public RunStore(RedisConnections redis, StateSettings settings) {
        this.redis = redis;
        this.settings = settings;
    }

    public void createQueued(RunCommand command) {
        createQueued(command, null);
    }

    /** @param keyFamily the publishable key family whose daily spend the run's tokens count against */
    public void createQueued(RunCommand command, @Nullable String keyFamily) {
        String key = RedisKeys.run(command.runId());
        Map<String, String> fields = new java.util.HashMap<>(Map.of(
                STATUS, RunStatus.QUEUED.wireName(),
                PROJECT, command.projectId(),
                AGENT, command.agentId(),
                MODE, command.mode().name().toLowerCase(java.util.Locale.ROOT),
                LAST_SEQ, "-1",
                CREATED_AT, command.createdAt().toString()));
        if (command.threadId() != null) {
            fields.put(THREAD, command.threadId());
        }
        if (keyFamily != null) {
            fields.put(KEY_FAMILY, keyFamily);
        }
        redis.sync().hset(key, fields);
        redis.sync().pexpire(key, settings.runRetention().toMillis());
    }

    public Optional<RunState> find(String runId) {
        Map<String, String> h = redis.sync().hgetall(RedisKeys.run(runId));
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
                h.get(WORKER),
                h.get(ERROR_CODE),
                h.get(ERROR_MESSAGE),
                h.containsKey(CREATED_AT) ? Instant.parse(h.get(CREATED_AT)) : Instant.EPOCH));
    }

    /** Counts a worker's start of the run and records the worker; does nothing for a run Redis does not know. */
    private static final String START_ATTEMPT = """
            if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
            redis.call('HSET', KEYS[1], 'worker', ARGV[1])
            return redis.call('HINCRBY', KEYS[1], 'starts', 1)
            """;

    /**
     * Worker side: this worker starts the run. Returns the attempt number (1 for the first start, 2 after a
     * worker died mid-run, …), counted by starts, not by deliveries, so commands handed back unstarted do
     * not inflate it; 0 when Redis does not know the run.
     */
    public int startAttempt(String runId, String workerId) {
        Long starts = redis.sync().eval(START_ATTEMPT, ScriptOutputType.INTEGER, new String[] {RedisKeys.run(runId)}, workerId);
        return starts == null ? 0 : starts.intValue();
    }

    /** Worker side: the run's run_end is durably in Kafka; never execute this run again. */
    public void markFinished(String runId, RunStatus status) {
        redis.sync().hset(RedisKeys.run(runId), Map.of(STATUS, status.wireName(), ENDED_AT, Instant.now().toString()));
    }

    /** The key a run's events are written under: its thread, or itself for one-off runs. */
    public static String partitionKey(RunState state) {
        return Topics.partitionKey(state.threadId(), state.runId());
    }

    /** Forgets a run whose command was never sent. */
    public void delete(String runId) {
        redis.sync().del(RedisKeys.run(runId));
    }

    /**
     * The command is not known to be in Kafka (its send timed out). It may still arrive; the run is marked
     * failed so a worker that gets it anyway does not run it.
     */
    public void markNotQueued(String runId) {
        redis.sync().hset(RedisKeys.run(runId), Map.of(STATUS, RunStatus.FAILED.wireName(),
                ERROR_CODE, "not_queued", ERROR_MESSAGE, "the run command could not be written to Kafka",
                ENDED_AT, Instant.now().toString()));
    }
}
