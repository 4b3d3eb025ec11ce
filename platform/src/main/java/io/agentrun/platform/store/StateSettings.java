package io.agentrun.platform.store;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrun.state.*}: how long the fast view in Redis keeps things. Kafka keeps the full record.
 *
 * @param runRetention          run state after the run was accepted
 * @param threadRetention       a thread (hash and history) after its last turn
 * @param threadLockTtl         upper bound of one run holding its thread, should its run_end never arrive
 * @param resumeBufferTtl       the resume buffer after run_end
 * @param resumeBufferMaxEvents cap of a resume buffer (approximate trimming)
 */
@ConfigurationProperties("agentrun.state")
public record StateSettings(
        @DefaultValue("7d") Duration runRetention,
        @DefaultValue("30d") Duration threadRetention,
        @DefaultValue("15m") Duration threadLockTtl,
        @DefaultValue("1h") Duration resumeBufferTtl,
        @DefaultValue("10000") long resumeBufferMaxEvents) {
}
