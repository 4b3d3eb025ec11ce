package io.agentrun.platform.store;

import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import io.lettuce.core.ScoredValue;
import java.time.Clock;
import java.util.List;

/**
 * A project's runs index ({@code ar:project:{id}:runs}): its run ids by creation time. A run's start writes it (the
 * library's {@code index_run}, in {@code start_run}'s call on a single primary; beside the run's record on a cluster) and
 * trims it now and then to the run retention and {@code agentrun.state.project-runs-max}; a thread's deletion takes its
 * runs out ({@link ThreadDeletion}). Only an index: the run's hash decides what a run is, and a run whose hash is gone
 * (expired, or Redis lost it) is skipped by the reader.
 */
public final class ProjectRuns {

    private final RedisConnections redis;
    private final StateSettings settings;
    private final Clock clock;

    public ProjectRuns(RedisConnections redis, StateSettings settings, Clock clock) {
        this.redis = redis;
        this.settings = settings;
        this.clock = clock;
    }

    /**
     * Up to {@code limit} of the project's run ids, newest first, created after {@code afterMs} (exclusive; never
     * before the run retention, which an index not trimmed yet may still hold) and before {@code beforeMs} or, at it,
     * ordered before {@code beforeRunId}; each with its creation ms as the score.
     */
    public List<ScoredValue<String>> before(String projectId, long afterMs, long beforeMs, String beforeRunId, int limit) {
        long retained = clock.millis() - settings.runRetention().toMillis();
        return RunIndexes.newestBefore(redis, RedisKeys.projectRuns(projectId), Math.max(afterMs, retained - 1), beforeMs,
                beforeRunId, limit);
    }
}
