package io.agentrun.relay.consume;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * {@code agentrun.relay.*}.
 *
 * @param id              this relay's client id; blank = {@code relay-<pid>}
 * @param maxPollRecords  events applied per batch (one Redis pipeline: a run-script call per run, or one in all on a
 *                        single primary)
 * @param pollTimeout     longest wait of one poll
 * @param fetchWait       the relay's share of the latency budget (docs/architecture.md, "Batching"): how long the broker
 *                        holds a fetch for more events ({@code fetch.max.wait.ms}, with a minimum size no paced stream
 *                        reaches), so a batch carries what arrived meanwhile: one fetch, one write of its Redis calls
 *                        (on a single primary) and one live message per api node for all of it
 * @param retryBackoff    longest pause before re-reading a batch Redis could not take (the services' one back-off,
 *                        50 ms doubling, capped here: once Redis answers again, a stream waits at most this long for
 *                        what the fault held up; a doubling to 1 s left events 2 s late after a failover)
 * @param commitInterval  how often applied offsets are committed (a relay that dies re-applies at most this
 *                        long's events, harmlessly); not per batch, which cost a broker request per poll
 * @param failoverReplay  in a Redis Cluster, how far back the relay re-applies the topic when the topology changes (a
 *                        failover may have dropped writes the old primary acknowledged but had not yet replicated); it
 *                        must exceed the replicas' lag plus the time to notice the failover ({@code cluster-node-timeout},
 *                        and up to {@code spring.data.redis.lettuce.cluster.refresh.period})
 */
@ConfigurationProperties("agentrun.relay")
public record RelaySettings(
        @DefaultValue("") String id,
        @DefaultValue("500") int maxPollRecords,
        @DefaultValue("500ms") Duration pollTimeout,
        @DefaultValue("5ms") Duration fetchWait,
        @DefaultValue("500ms") Duration retryBackoff,
        @DefaultValue("1s") Duration commitInterval,
        @DefaultValue("60s") Duration failoverReplay) {

    public RelaySettings {
        if (id.isBlank()) {
            id = "relay-" + ProcessHandle.current().pid();
        }
    }
}
