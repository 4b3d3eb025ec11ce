package io.agentrun.model.pipeline;

import java.util.List;
import java.util.Map;

/**
 * One service node's meters at one moment, as it writes them to Redis ({@code ar:pipeline:…}) and the api reads them
 * back for the pipeline page. Keys of {@code counters} and {@code gauges} are the names in {@link #COUNTERS} and
 * {@link #GAUGES}; a node writes those its service has.
 *
 * @param at       when it was taken (epoch ms)
 * @param counters running totals since the node started: a rate is the difference between two samples of one node
 * @param gauges   values at {@code at}
 * @param ttfe     the stream requests whose first event was written since the node's previous sample, by time to
 *                 first event ({@link Histogram}); empty on nodes that serve no streams
 */
public record NodeSample(long at, Map<String, Double> counters, Map<String, Double> gauges, Histogram ttfe) {

    /** Events the relays applied to Redis (every event of every run passes a relay once). */
    public static final String EVENTS = "events";
    /** Events the api nodes wrote to SSE connections (an event read by two clients counts twice). */
    public static final String DELIVERED = "delivered";
    /** Failures: runs that ended failed or timed out (workers), 5xx answers (api), batches Redis refused (relays). */
    public static final String ERRORS = "errors";
    public static final List<String> COUNTERS = List.of(EVENTS, DELIVERED, ERRORS);

    /** Run commands the workers' share group has not finished (the same on every worker; -1: not known). */
    public static final String BACKLOG = "backlog";
    /** Records of the relay's partitions not yet applied. */
    public static final String LAG = "lag";
    /** Runs executing on the worker. */
    public static final String IN_FLIGHT = "in_flight";
    /** SSE connections open on the api node. */
    public static final String STREAMS = "streams";
    public static final List<String> GAUGES = List.of(BACKLOG, LAG, IN_FLIGHT, STREAMS);

    public NodeSample {
        counters = Map.copyOf(counters);
        gauges = Map.copyOf(gauges);
    }
}
