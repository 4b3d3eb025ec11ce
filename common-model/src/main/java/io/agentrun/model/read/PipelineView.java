package io.agentrun.model.read;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The pipeline as an operator reads it ({@code GET /admin/v1/pipeline}), from the snapshots each service node writes of
 * its own meters every {@code intervalMs}: the nodes up, the workers' backlog and the relays' lag now, and the last
 * snapshots' rates and times to first event as series, one point per interval.
 *
 * @param backlog  run commands the workers' share group has not finished (the largest any worker reported last); null
 *                 when no worker reported it
 * @param relayLag records of the event topic the relays have not applied (their last reports, summed); null without relays
 */
public record PipelineView(Instant at, long intervalMs, List<Node> nodes, @Nullable Double backlog, @Nullable Double relayLag,
        Series series) {

    /**
     * A node that wrote a snapshot within three intervals.
     *
     * @param service  {@code api}, {@code worker} or {@code relay}
     * @param node     its id ({@code api-…}, {@code agentrun.worker.id}, {@code agentrun.relay.id})
     * @param instance this run of the process (a node restarted under the same id is another instance: its totals
     *                 start again from 0)
     * @param counters its running totals at {@code lastSeen}
     * @param gauges   its gauges at {@code lastSeen}
     */
    public record Node(String service, String node, String instance, Instant lastSeen, Map<String, Double> counters,
            Map<String, Double> gauges) {
    }

    /**
     * One point per interval (its start), over the snapshots kept: events applied by the relays and delivered by the api
     * nodes per second, failures per second, and the times to first event of the interval's streams (p50, p99; no point
     * for an interval without a stream).
     */
    public record Series(List<Point> eventsPerS, List<Point> deliveredPerS, List<Point> errorsPerS, List<Point> ttfeP50Ms,
            List<Point> ttfeP99Ms) {
    }

    public record Point(Instant at, double value) {
    }
}
