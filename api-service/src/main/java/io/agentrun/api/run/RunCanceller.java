package io.agentrun.api.run;

import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.store.ApprovalDecisions;
import io.agentrun.platform.store.RunStore;
import io.lettuce.core.KeyValue;
import java.util.List;
import io.agentrun.platform.redis.RedisConnections;
import io.lettuce.core.SetArgs;
import java.time.Duration;

/**
 * Asks the worker holding a run to stop it: a flag key (seen by a worker that starts the run later)
 * and a message on the run's cancel channel (seen by the worker running it now); a run that waits for a person's
 * decision is woken so that a worker ends it.
 */
public final class RunCanceller {

    private static final Duration FLAG_TTL = Duration.ofHours(1);

    private final RedisConnections redis;
    private final ApprovalDecisions decisions;

    public RunCanceller(RedisConnections redis, ApprovalDecisions decisions) {
        this.redis = redis;
        this.decisions = decisions;
    }

    public void cancel(String runId) {
        String key = RedisKeys.cancel(runId);
        redis.sync().set(key, "1", SetArgs.Builder.px(FLAG_TTL.toMillis()));
        redis.sync().publish(key, "cancel");
        wakeIfWaiting(runId);
    }

    /**
     * A run that waits for a person's decision has no worker to hear the cancel: it goes on now, and the worker that
     * claims it (the flag lets a waiting run be claimed) ends it cancelled.
     */
    private void wakeIfWaiting(String runId) {
        List<KeyValue<String, String>> run = redis.sync().hmget(RedisKeys.run(runId), RunStore.APPROVAL_CALL, RunStore.DECISION,
                RunStore.COMMAND);
        if (run.get(0).hasValue() && !run.get(0).getValue().isEmpty() && !run.get(1).hasValue()) {
            decisions.goOn(runId, run.get(2).getValueOrElse(""));
        }
    }
}
