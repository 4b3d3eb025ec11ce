package io.agentrun.api.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.model.pipeline.Histogram;
import io.agentrun.model.pipeline.NodeSample;
import io.agentrun.model.read.PipelineView;
import io.agentrun.platform.pipeline.PipelineNode;
import io.agentrun.platform.pipeline.PipelineStore.NodeSamples;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PipelineChartsTest {

    private static final long INTERVAL = 10_000;
    private static final long T0 = 1_800_000_000_000L; // a multiple of the interval

    @Test
    void ratesAreEachNodesDifferencesSummedPerInterval() {
        NodeSamples relayA = node("relay", "relay-0", sample(T0 + 1_000, 100), sample(T0 + 11_000, 300), sample(T0 + 21_000, 300));
        NodeSamples relayB = node("relay", "relay-1", sample(T0 + 4_000, 0), sample(T0 + 14_000, 50));

        PipelineView view = PipelineCharts.of(List.of(relayA, relayB), T0 + 22_000, INTERVAL);

        assertThat(view.series().eventsPerS()).containsExactly(point(T0 + 10_000, 25.0), point(T0 + 20_000, 0.0));
    }

    @Test
    void aCounterThatWentDownStartedAgainAndCountsNothing() {
        NodeSamples relay = node("relay", "relay-0", sample(T0 + 1_000, 500), sample(T0 + 11_000, 20));

        assertThat(PipelineCharts.of(List.of(relay), T0 + 12_000, INTERVAL).series().eventsPerS()).isEmpty();
    }

    @Test
    void theTimeToFirstEventIsReadOffTheNodesHistogramsMerged() {
        NodeSample a = new NodeSample(T0 + 1_000, Map.of(), Map.of(), new Histogram(List.of(new Histogram.Bucket(0, 10, 98))));
        NodeSample b = new NodeSample(T0 + 2_000, Map.of(), Map.of(), new Histogram(List.of(new Histogram.Bucket(1_000, 2_000, 2))));
        NodeSample quiet = new NodeSample(T0 + 12_000, Map.of(), Map.of(), Histogram.EMPTY);

        PipelineView view = PipelineCharts.of(List.of(node("api", "api-a", quiet, a), node("api", "api-b", b)), T0 + 13_000, INTERVAL);

        assertThat(view.series().ttfeP50Ms()).containsExactly(point(T0, 5.1));
        assertThat(view.series().ttfeP99Ms()).containsExactly(point(T0, 1_500.0));
    }

    @Test
    void theBacklogIsTheWorkersLargestAndTheLagTheRelaysSum() {
        NodeSamples w0 = node("worker", "worker-0", gauges(T0, Map.of(NodeSample.BACKLOG, 7.0)));
        NodeSamples w1 = node("worker", "worker-1", gauges(T0, Map.of(NodeSample.BACKLOG, -1.0)));
        NodeSamples r0 = node("relay", "relay-0", gauges(T0, Map.of(NodeSample.LAG, 2.0)));
        NodeSamples r1 = node("relay", "relay-1", gauges(T0, Map.of(NodeSample.LAG, 3.0)));

        PipelineView view = PipelineCharts.of(List.of(w0, w1, r0, r1), T0, INTERVAL);

        assertThat(view.backlog()).isEqualTo(7.0);
        assertThat(view.relayLag()).isEqualTo(5.0);
        assertThat(view.nodes()).extracting(PipelineView.Node::node).containsExactly("worker-0", "worker-1", "relay-0", "relay-1");
        assertThat(PipelineCharts.of(List.of(), T0, INTERVAL).backlog()).as("no worker reported").isNull();
    }

    /** Newest first, as the store reads them. */
    private static NodeSamples node(String service, String id, NodeSample... oldestFirst) {
        List<NodeSample> samples = new java.util.ArrayList<>(List.of(oldestFirst));
        java.util.Collections.reverse(samples);
        return new NodeSamples(new PipelineNode(service, id, "i1"), samples);
    }

    private static NodeSample sample(long at, double events) {
        return new NodeSample(at, Map.of(NodeSample.EVENTS, events), Map.of(), Histogram.EMPTY);
    }

    private static NodeSample gauges(long at, Map<String, Double> gauges) {
        return new NodeSample(at, Map.of(), gauges, Histogram.EMPTY);
    }

    private static PipelineView.Point point(long at, double value) {
        return new PipelineView.Point(Instant.ofEpochMilli(at), value);
    }
}
