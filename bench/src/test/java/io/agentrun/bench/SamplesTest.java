package io.agentrun.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SamplesTest {

    @Test
    void nearestRankPercentilesInMilliseconds() {
        Samples samples = new Samples();
        for (int i = 100; i >= 1; i--) {
            samples.add(i * 1000L); // 1..100 ms, added out of order
        }
        Samples.Percentiles p = samples.percentiles();
        assertThat(p.count()).isEqualTo(100);
        assertThat(p.p50()).isEqualTo(50.0);
        assertThat(p.p95()).isEqualTo(95.0);
        assertThat(p.p99()).isEqualTo(99.0);
        assertThat(p.max()).isEqualTo(100.0);
    }

    @Test
    void mergesAndGrowsPastItsFirstCapacity() {
        Samples a = new Samples();
        Samples b = new Samples();
        for (int i = 0; i < 1000; i++) {
            a.add(1000);
            b.add(3000);
        }
        a.addAll(b);
        assertThat(a.size()).isEqualTo(2000);
        assertThat(a.percentiles().p50()).isEqualTo(1.0);
        assertThat(a.percentiles().p95()).isEqualTo(3.0);
    }

    @Test
    void emptyIsZeros() {
        assertThat(new Samples().percentiles()).isEqualTo(Samples.Percentiles.EMPTY);
    }
}
