package io.agentrun.platform.store;

import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The records of idempotency keys in Redis ({@code ar:idem:{digest}}): which request fingerprint a key was first used
 * with and which run it started. Reserving is atomic, so of concurrent duplicates (on any api nodes) exactly one gets
 * to start a run; on a single primary the reservation is part of the run's start ({@link RunStarts}).
 */
public final class IdempotencyKeys {

    /** What a key already holds. */
    public record Held(String fingerprint, String runId, long createdMs) {

        static Held of(List<Object> reply, int from) {
            return new Held(String.valueOf(reply.get(from)), String.valueOf(reply.get(from + 1)),
                    Long.parseLong(String.valueOf(reply.get(from + 2))));
        }
    }

    private final RedisConnections redis;
    private final Duration retention;

    public IdempotencyKeys(RedisConnections redis, Duration retention) {
        this.redis = redis;
        this.retention = retention;
    }

    Duration retention() {
        return retention;
    }

    /** @return empty when the key is now reserved for {@code runId}; else what it held already */
    Optional<Held> reserve(String digest, String fingerprint, String runId) {
        List<Object> held = RunLibrary.RESERVE_IDEMPOTENCY.runList(redis, new String[] {RedisKeys.idempotency(digest)},
                fingerprint, runId, Long.toString(System.currentTimeMillis()), Long.toString(retention.toMillis()));
        return held == null || held.isEmpty() ? Optional.empty() : Optional.of(Held.of(held, 0));
    }

    public boolean holds(String digest, String runId) {
        return runId.equals(redis.sync().hget(RedisKeys.idempotency(digest), "run_id"));
    }

    /** Moves the key from a run that never came to be to a new one; false when it no longer names {@code fromRunId}. */
    public boolean takeOver(String digest, String fromRunId, String toRunId) {
        return RunLibrary.TAKE_OVER_IDEMPOTENCY.run(redis, new String[] {RedisKeys.idempotency(digest)},
                fromRunId, toRunId, Long.toString(System.currentTimeMillis())) == 1L;
    }

    /** Frees the key of a request that started nothing (refused), so that its retry may. */
    public void release(String digest, String runId) {
        RunLibrary.RELEASE_IDEMPOTENCY.run(redis, new String[] {RedisKeys.idempotency(digest)}, runId);
    }
}
