package io.agentrun.platform.pipeline;

import io.agentrun.model.pipeline.Histogram;
import io.agentrun.model.pipeline.NodeSample;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.Statistic;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.search.Search;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Reads a {@link NodeSample} off a service's own registry: which meter each value of the page comes from. A node writes
 * the values whose meters its registry has (a relay has no streams, an api node no backlog), so one table serves the
 * three services.
 */
final class PipelineMeters {

    /** Running totals: the sum of the counts of every meter found (a timer counts its observations). */
    private static final Map<String, List<Function<MeterRegistry, Search>>> COUNTERS = Map.of(
            NodeSample.EVENTS, List.of(r -> r.find("agentrun.relay.event.age")),
            NodeSample.DELIVERED, List.of(r -> r.find("agentrun.event.delivery")),
            NodeSample.ERRORS, List.of(
                    r -> r.find("agentrun.runs.ended").tag("status", "failed"),
                    r -> r.find("agentrun.runs.ended").tag("status", "timed_out"),
                    r -> r.find("http.server.requests").tag("outcome", "SERVER_ERROR"),
                    r -> r.find("agentrun.relay.batches.failed")));
    private static final Map<String, Function<MeterRegistry, Search>> GAUGES = Map.of(
            NodeSample.BACKLOG, r -> r.find("agentrun.worker.share_group.lag"),
            NodeSample.LAG, r -> r.find("agentrun.relay.lag"),
            NodeSample.IN_FLIGHT, r -> r.find("agentrun.worker.runs.in_flight"),
            NodeSample.STREAMS, r -> r.find("agentrun.sse.connections"));
    static final String FIRST_EVENT = "agentrun.stream.first_event";

    private final MeterRegistry registry;
    /** The first-event timers' observations per bucket (by upper bound, ms) at the previous sample. */
    private Map<Double, Double> ttfeBefore = Map.of();

    PipelineMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Not thread-safe: one writer takes the samples, one after the other. */
    NodeSample sample(long at) {
        return new NodeSample(at, counters(), gauges(), ttfeSinceLastSample());
    }

    private Map<String, Double> counters() {
        Map<String, Double> values = new HashMap<>();
        COUNTERS.forEach((name, searches) -> {
            List<Meter> meters = searches.stream().flatMap(search -> search.apply(registry).meters().stream()).toList();
            if (!meters.isEmpty()) {
                values.put(name, meters.stream().mapToDouble(meter -> statistic(meter, Statistic.COUNT)).sum());
            }
        });
        return values;
    }

    private Map<String, Double> gauges() {
        Map<String, Double> values = new HashMap<>();
        GAUGES.forEach((name, search) -> {
            var meters = search.apply(registry).meters();
            if (!meters.isEmpty()) {
                values.put(name, meters.stream().mapToDouble(meter -> statistic(meter, Statistic.VALUE)).sum());
            }
        });
        return values;
    }

    private static double statistic(Meter meter, Statistic statistic) {
        double sum = 0;
        for (Measurement measurement : meter.measure()) {
            if (measurement.getStatistic() == statistic && Double.isFinite(measurement.getValue())) {
                sum += measurement.getValue();
            }
        }
        return sum;
    }

    /**
     * The streams' first events since the last sample, by bucket: the difference of two readings of the timers'
     * histograms (every agent's timer has the same bounds, so they add up). The services' registry is Prometheus's,
     * whose histogram counts are cumulative over buckets and over the node's life; a total that went down (a timer
     * removed) starts the count again.
     */
    private Histogram ttfeSinceLastSample() {
        Map<Double, Double> now = perBucket(registry.find(FIRST_EVENT).timers());
        List<Histogram.Bucket> buckets = new ArrayList<>();
        double above = 0;
        for (Map.Entry<Double, Double> bucket : now.entrySet()) {
            double before = ttfeBefore.getOrDefault(bucket.getKey(), 0.0);
            long count = Math.round(bucket.getValue() >= before ? bucket.getValue() - before : bucket.getValue());
            if (count > 0) {
                buckets.add(new Histogram.Bucket(above, bucket.getKey(), count));
            }
            above = bucket.getKey();
        }
        ttfeBefore = now;
        return new Histogram(buckets);
    }

    /**
     * Observations in each bucket (not at or below its bound: in it), summed over the timers, by upper bound. Those above
     * the last bound (the histogram's maximum, 30 s) count in the last bucket: the page shows them as its bound.
     */
    private static Map<Double, Double> perBucket(Iterable<Timer> timers) {
        TreeMap<Double, Double> sum = new TreeMap<>();
        for (Timer timer : timers) {
            var snapshot = timer.takeSnapshot();
            double below = 0;
            double top = 0;
            for (CountAtBucket bucket : snapshot.histogramCounts()) {
                top = bucket.bucket(TimeUnit.MILLISECONDS);
                sum.merge(top, bucket.count() - below, Double::sum);
                below = bucket.count();
            }
            if (snapshot.count() > below && top > 0) {
                sum.merge(top, snapshot.count() - below, Double::sum);
            }
        }
        return sum;
    }
}
