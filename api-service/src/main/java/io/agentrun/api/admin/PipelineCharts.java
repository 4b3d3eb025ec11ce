package io.agentrun.api.admin;

import io.agentrun.model.pipeline.Histogram;
import io.agentrun.model.pipeline.NodeSample;
import io.agentrun.model.read.PipelineView;
import io.agentrun.platform.pipeline.PipelineStore.NodeSamples;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.BinaryOperator;

/**
 * The pipeline page's figures from the nodes' snapshots. Nodes write at their own moments, so the series are cut into
 * intervals of the snapshot period (from the epoch): a point is the interval's start. A rate is a node's counter's
 * difference between two of its snapshots over their time apart, put in the later one's interval, and summed over
 * nodes (a node's later rate in an interval replaces an earlier one: two snapshots in one interval must not count
 * twice). A total that went down is a counter started again (skipped). The interval's time to first event is read off the
 * api nodes' histograms of it merged, so its p99 is the streams' p99, not an average of nodes'.
 */
final class PipelineCharts {

    private PipelineCharts() {
    }

    static PipelineView of(List<NodeSamples> nodes, long now, long intervalMs) {
        return new PipelineView(Instant.ofEpochMilli(now), intervalMs, nodes.stream().map(PipelineCharts::node).toList(),
                latest(nodes, "worker", NodeSample.BACKLOG, Math::max), latest(nodes, "relay", NodeSample.LAG, Double::sum),
                new PipelineView.Series(rate(nodes, NodeSample.EVENTS, intervalMs), rate(nodes, NodeSample.DELIVERED, intervalMs),
                        rate(nodes, NodeSample.ERRORS, intervalMs), ttfe(nodes, 0.5, intervalMs), ttfe(nodes, 0.99, intervalMs)));
    }

    private static PipelineView.Node node(NodeSamples samples) {
        NodeSample last = samples.newestFirst().getFirst();
        return new PipelineView.Node(samples.node().service(), samples.node().id(), samples.node().instance(),
                Instant.ofEpochMilli(last.at()), last.counters(), last.gauges());
    }

    /** A gauge's last values of the service's nodes, combined; null when none reported it (a backlog of -1: not known). */
    private static @org.jspecify.annotations.Nullable Double latest(List<NodeSamples> nodes, String service, String gauge, BinaryOperator<Double> combine) {
        return nodes.stream().filter(n -> n.node().service().equals(service))
                .map(n -> n.newestFirst().getFirst().gauges().get(gauge)).filter(Objects::nonNull).filter(v -> v >= 0)
                .reduce(combine).orElse(null);
    }

    private static List<PipelineView.Point> rate(List<NodeSamples> nodes, String counter, long intervalMs) {
        TreeMap<Long, Double> sum = new TreeMap<>();
        for (NodeSamples node : nodes) {
            nodeRates(node.newestFirst(), counter, intervalMs).forEach((slot, rate) -> sum.merge(slot, rate, Double::sum));
        }
        return points(sum, 1000);
    }

    private static Map<Long, Double> nodeRates(List<NodeSample> newestFirst, String counter, long intervalMs) {
        TreeMap<Long, Double> rates = new TreeMap<>();
        for (int i = newestFirst.size() - 1; i > 0; i--) {
            NodeSample before = newestFirst.get(i);
            NodeSample after = newestFirst.get(i - 1);
            Double from = before.counters().get(counter);
            Double to = after.counters().get(counter);
            if (from != null && to != null && to >= from && after.at() > before.at()) {
                rates.put(slot(after.at(), intervalMs), (to - from) * 1000 / (after.at() - before.at()));
            }
        }
        return rates;
    }

    private static List<PipelineView.Point> ttfe(List<NodeSamples> nodes, double quantile, long intervalMs) {
        TreeMap<Long, Histogram> merged = new TreeMap<>();
        for (NodeSamples node : nodes) {
            for (NodeSample sample : node.newestFirst()) {
                merged.merge(slot(sample.at(), intervalMs), sample.ttfe(), Histogram::plus);
            }
        }
        TreeMap<Long, Double> values = new TreeMap<>();
        merged.forEach((slot, histogram) -> {
            if (histogram.count() > 0) {
                values.put(slot, histogram.quantile(quantile));
            }
        });
        return points(values, 10);
    }

    private static long slot(long at, long intervalMs) {
        return at - Math.floorMod(at, intervalMs);
    }

    /** Rounded to {@code 1/scale}: the page shows what the JSON says, and no more digits than mean anything. */
    private static List<PipelineView.Point> points(TreeMap<Long, Double> values, double scale) {
        List<PipelineView.Point> points = new ArrayList<>(values.size());
        values.forEach((slot, value) -> points.add(new PipelineView.Point(Instant.ofEpochMilli(slot), Math.round(value * scale) / scale)));
        return points;
    }
}
