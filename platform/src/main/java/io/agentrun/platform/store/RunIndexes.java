package io.agentrun.platform.store;

import io.agentrun.platform.redis.RedisConnections;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.ScoredValue;
import java.util.List;

/** The sorted sets that list runs by creation time (ms), read a page at a time: a thread's runs, a project's runs. */
final class RunIndexes {

    /** Runs created in one ms beyond a page's last one that a page can step over (ties are ordered by run id). */
    private static final int TIES = 64;

    private RunIndexes() {
    }

    /**
     * Up to {@code limit} run ids of the index {@code key}, newest first: created after {@code afterMs} (exclusive) and
     * before {@code beforeMs} (exclusive) or, at {@code beforeMs} itself, ordered before {@code beforeRunId}.
     */
    static List<ScoredValue<String>> newestBefore(RedisConnections redis, String key, long afterMs, long beforeMs,
            String beforeRunId, int limit) {
        List<ScoredValue<String>> page = redis.sync().zrevrangebyscoreWithScores(key,
                Range.from(Range.Boundary.excluding((double) afterMs), Range.Boundary.including((double) beforeMs)),
                Limit.create(0, limit + (long) TIES));
        return page.stream()
                .filter(run -> run.getScore() < beforeMs || run.getValue().compareTo(beforeRunId) < 0)
                .limit(limit)
                .toList();
    }
}
