package io.agentrun.platform.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.model.pipeline.NodeSample;
import io.agentrun.platform.redis.RedisConnections;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A node's snapshots of its own meters (a Prometheus registry, as the services have) written to a real redis-server and
 * read back as the api reads them: totals cumulative, the time to first event of each interval only, the list capped,
 * a silent node gone.
 */
@ExtendWith(RealInfrastructure.class)
class PipelineSnapshotsIT {

    private static final Duration SILENT_AFTER = Duration.ofSeconds(30);
    private static RedisConnections redis;
    private static PipelineStore store;

    @BeforeAll
    static void start() {
        redis = RedisConnections.connect(RealInfrastructure.redisUrl());
        store = new PipelineStore(redis, new JsonCodec());
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    @Test
    void totalsAreCumulativeAndTheTimeToFirstEventIsTheIntervals() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Timer firstEvent = Timer.builder(PipelineMeters.FIRST_EVENT).tag("agent", "a").publishPercentileHistogram().register(registry);
        Timer otherAgent = Timer.builder(PipelineMeters.FIRST_EVENT).tag("agent", "b").publishPercentileHistogram().register(registry);
        Timer delivery = Timer.builder("agentrun.event.delivery").register(registry);
        AtomicInteger streams = registry.gauge("agentrun.sse.connections", new AtomicInteger(3));
        PipelineMeters meters = new PipelineMeters(registry);
        PipelineNode node = PipelineNode.started("api", "api-test");
        long now = System.currentTimeMillis();

        for (int i = 0; i < 3; i++) {
            firstEvent.record(Duration.ofMillis(5));
            delivery.record(Duration.ofMillis(1));
        }
        store.write(node, meters.sample(now - 2000), SILENT_AFTER);
        otherAgent.record(Duration.ofMillis(2000));
        delivery.record(Duration.ofMillis(1));
        store.write(node, meters.sample(now - 1000), SILENT_AFTER);

        List<NodeSample> samples = mine(node);
        assertThat(samples).hasSize(2);
        NodeSample last = samples.getFirst();
        NodeSample first = samples.getLast();
        assertThat(first.counters()).containsEntry(NodeSample.DELIVERED, 3.0);
        assertThat(last.counters()).containsEntry(NodeSample.DELIVERED, 4.0).doesNotContainKey(NodeSample.EVENTS);
        assertThat(last.gauges()).containsEntry(NodeSample.STREAMS, 3.0).doesNotContainKey(NodeSample.BACKLOG);
        assertThat(first.ttfe().count()).isEqualTo(3);
        assertThat(first.ttfe().quantile(0.99)).isCloseTo(5, within(1.0));
        assertThat(last.ttfe().count()).as("only the interval's stream").isEqualTo(1);
        assertThat(last.ttfe().quantile(0.5)).as("in the bucket of 2 s").isBetween(1500.0, 2500.0);
        assertThat(streams.get()).isEqualTo(3);
    }

    @Test
    void aNodeKeepsItsLastSnapshotsAndASilentOneIsGone() {
        PipelineMeters meters = new PipelineMeters(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
        PipelineNode silent = PipelineNode.started("worker", "worker-gone");
        PipelineNode busy = PipelineNode.started("worker", "worker-busy");
        long now = System.currentTimeMillis();
        store.write(silent, meters.sample(now - SILENT_AFTER.toMillis() - 1000), SILENT_AFTER);
        for (int i = PipelineStore.KEPT + 5; i > 0; i--) {
            store.write(busy, meters.sample(now - i), SILENT_AFTER);
        }

        assertThat(mine(busy)).hasSize(PipelineStore.KEPT).first().extracting(NodeSample::at).isEqualTo(now - 1);
        assertThat(store.read(now, SILENT_AFTER)).noneMatch(n -> n.node().equals(silent));
        assertThat(redis.sync().zscore(RedisKeys.pipelineNodes(), silent.member())).as("dropped by the next write").isNull();
        assertThat(redis.sync().pttl(RedisKeys.pipelineSamples(busy.member()))).isBetween(1L, SILENT_AFTER.toMillis());
    }

    private static List<NodeSample> mine(PipelineNode node) {
        return store.read(System.currentTimeMillis(), SILENT_AFTER).stream().filter(n -> n.node().equals(node)).findFirst()
                .orElseThrow().newestFirst();
    }
}
