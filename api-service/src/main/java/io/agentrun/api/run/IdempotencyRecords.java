package io.agentrun.api.run;

import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.LuaScript;
import io.agentrun.platform.redis.RedisConnections;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The records of idempotency keys in Redis ({@code ar:idem:{digest}}): which request fingerprint a key was
 * first used with and which run it started. Reserving is atomic, so of concurrent duplicates (on any api
 * nodes) exactly one gets to start a run.
 */
final class IdempotencyRecords {

    /** What a key already holds. */
    record Held(String fingerprint, String runId, long createdMs) {
    }

    private static final LuaScript RESERVE = new LuaScript("""
            local held = redis.call('HMGET', KEYS[1], 'fingerprint', 'run_id', 'created_ms')
            if held[2] then
              return held
            end
            redis.call('HSET', KEYS[1], 'fingerprint', ARGV[1], 'run_id', ARGV[2], 'created_ms', ARGV[3])
            redis.call('PEXPIRE', KEYS[1], ARGV[4])
            return {}
            """);

    private static final LuaScript TAKE_OVER = new LuaScript("""
            if redis.call('HGET', KEYS[1], 'run_id') == ARGV[1] then
              redis.call('HSET', KEYS[1], 'run_id', ARGV[2], 'created_ms', ARGV[3])
              return 1
            end
            return 0
            """);

    private static final LuaScript RELEASE = new LuaScript("""
            if redis.call('HGET', KEYS[1], 'run_id') == ARGV[1] then
              return redis.call('DEL', KEYS[1])
            end
            return 0
            """);

    private final RedisConnections redis;
    private final Duration retention;

    IdempotencyRecords(RedisConnections redis, Duration retention) {
        this.redis = redis;
        this.retention = retention;
    }

    /** @return empty when the key is now reserved for {@code runId}; else what it held already */
    Optional<Held> reserve(String digest, String fingerprint, String runId) {
        List<Object> held = RESERVE.runList(redis.sync(), new String[] {RedisKeys.idempotency(digest)},
                fingerprint, runId, Long.toString(System.currentTimeMillis()), Long.toString(retention.toMillis()));
        return held == null || held.isEmpty() ? Optional.empty() : Optional.of(held(held));
    }

    boolean holds(String digest, String runId) {
        return runId.equals(redis.sync().hget(RedisKeys.idempotency(digest), "run_id"));
    }

    /** Moves the key from a run that never came to be to a new one; false when it no longer names {@code fromRunId}. */
    boolean takeOver(String digest, String fromRunId, String toRunId) {
        return TAKE_OVER.run(redis.sync(), new String[] {RedisKeys.idempotency(digest)},
                fromRunId, toRunId, Long.toString(System.currentTimeMillis())) == 1L;
    }

    /** Frees the key of a request that started nothing (refused), so that its retry may. */
    void release(String digest, String runId) {
        RELEASE.run(redis.sync(), new String[] {RedisKeys.idempotency(digest)}, runId);
    }

    private static Held held(List<Object> fields) {
        return new Held((String) fields.get(0), (String) fields.get(1), Long.parseLong(fields.get(2) == null ? "0" : (String) fields.get(2)));
    }
}
