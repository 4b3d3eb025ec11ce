package io.agentrun.model.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.model.pipeline.Histogram.Bucket;
import java.util.List;
import org.junit.jupiter.api.Test;

class HistogramTest {

    @Test
    void aQuantileIsInterpolatedInsideItsBucket() {
        Histogram h = new Histogram(List.of(new Bucket(0, 10, 50), new Bucket(100, 200, 50)));

        assertThat(h.quantile(0.5)).isEqualTo(10.0);
        assertThat(h.quantile(0.25)).isEqualTo(5.0);
        assertThat(h.quantile(0.99)).isEqualTo(198.0);
        assertThat(Histogram.EMPTY.quantile(0.5)).isNaN();
    }

    @Test
    void nodesHistogramsAddUpByBucket() {
        Histogram a = new Histogram(List.of(new Bucket(0, 10, 1), new Bucket(100, 200, 1)));
        Histogram b = new Histogram(List.of(new Bucket(10, 20, 2), new Bucket(100, 200, 96)));

        Histogram sum = a.plus(b);

        assertThat(sum.buckets()).containsExactly(new Bucket(0, 10, 1), new Bucket(10, 20, 2), new Bucket(100, 200, 97));
        assertThat(sum.count()).isEqualTo(100);
        assertThat(sum.quantile(0.99)).as("the streams' p99, not the nodes' averaged").isGreaterThan(100.0);
    }
}
