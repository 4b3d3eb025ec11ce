package io.agentrun.platform.store;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrun.state.*}: how long the fast view in Redis keeps things. Kafka keeps the full record.
 *
 * @param runRetention          run state after the run was accepted
 * @param threadRetention       a thread (hash and history) after its last turn
 * @param threadLockTtl         upper bound of one run holding its thread, should its run_end never arrive
 * @param resumeBufferTtl       the resume buffer after run_end
 * @param resumeBufferMaxEvents cap of a resume buffer (approximate trimming)
 * @param claimTimeout          a command no worker claimed this long after it was accepted is produced again by
 *                              a worker's sweeper (then with doubling backoff): it was lost on its way (archived
 *                              by the share group after failed deliveries, say). Longer than a normal queue wait
 *                              at full load, or waiting commands get produced twice (harmless: a claim skips
 *                              the copy, but it costs a record)
 * @param projectRunsMax        cap of a project's runs index ({@code GET /api/v1/runs}): the newest this many runs of a
 *                              project are listed (within {@code runRetention}); each costs ~60 bytes of Redis
 */
@ConfigurationProperties("agentrun.state")
public record StateSettings(
        @DefaultValue("7d") Duration runRetention,
        @DefaultValue("30d") Duration threadRetention,
        @DefaultValue("15m") Duration threadLockTtl,
        @DefaultValue("1h") Duration resumeBufferTtl,
        @DefaultValue("10000") long resumeBufferMaxEvents,
        @DefaultValue("30s") Duration claimTimeout,
        @DefaultValue("100000") long projectRunsMax) {

    /** The binding's constructor: the one Spring fills from {@code agentrun.state.*}. */
    @ConstructorBinding
    public StateSettings {
    }

    /** With the default cap of a project's runs index. */
    public StateSettings(Duration runRetention, Duration threadRetention, Duration threadLockTtl, Duration resumeBufferTtl,
            long resumeBufferMaxEvents, Duration claimTimeout) {
        this(runRetention, threadRetention, threadLockTtl, resumeBufferTtl, resumeBufferMaxEvents, claimTimeout, 100_000);
    }
}
