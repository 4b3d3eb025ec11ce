package io.agentrun.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CpuCostTest {

    /** CPU µs of a phase that delivered 1,000 events in 100 runs. */
    private static final List<ProcessStats.Usage> USAGES = List.of(
            usage("api-1", 300_000), usage("worker-1", 200_000), usage("relay-1", 100_000),
            usage("kafka", 150_000), usage("redis", 50_000), usage("bench", 400_000));

    @Test
    void eachProcessPerEventAndPerRun() {
        CpuCost cost = CpuCost.of("pipeline", USAGES, 1_000, 100);
        assertThat(cost.processes()).contains(new CpuCost.Share("api-1", 300.0, 3_000.0), new CpuCost.Share("bench", 400.0, 4_000.0));
    }

    @Test
    void thePipelinesSumIsItsServicesAndStoresNotTheBench() {
        CpuCost cost = CpuCost.of("pipeline", USAGES, 1_000, 100);
        assertThat(cost.summed()).containsExactly("api-1", "worker-1", "relay-1", "kafka", "redis");
        assertThat(cost.microsPerEvent()).isEqualTo(800.0);
        assertThat(cost.microsPerRun()).isEqualTo(8_000.0);
        assertThat(cost.label("pipeline")).isEqualTo("pipeline processes");
    }

    @ParameterizedTest
    @CsvSource({
            "direct,    bench,             400.0",
            "kafka-raw, kafka+bench,       550.0",
            "share-raw, kafka+bench,       550.0",
            "redis-raw, redis+bench,       450.0",
            "hops-raw,  kafka+redis+bench, 600.0"})
    void aBaselineCostsTheBenchsJvmAndTheStoresItUses(String mode, String label, double microsPerEvent) {
        CpuCost cost = CpuCost.of(mode, USAGES, 1_000, 100);
        assertThat(cost.label(mode)).isEqualTo(label);
        assertThat(cost.microsPerEvent()).isEqualTo(microsPerEvent);
    }

    @Test
    void numberedNodesBelongToTheirRole() {
        assertThat(CpuCost.runsOn("hops-raw", "kafka-2")).isTrue();
        assertThat(CpuCost.runsOn("redis-raw", "redis-3")).isTrue();
        assertThat(CpuCost.runsOn("direct", "api-2")).isFalse();
    }

    @Test
    void nothingDeliveredIsNoFigureNotInfinity() {
        CpuCost cost = CpuCost.of("pipeline", USAGES, 0, 0);
        assertThat(cost.microsPerEvent()).isNull();
        assertThat(cost.microsPerRun()).isNull();
    }

    @Test
    void againstARunningStackOnlyTheBenchIsKnown() {
        CpuCost cost = CpuCost.of("pipeline", List.of(usage("bench", 1_000)), 10, 1);
        assertThat(cost.summed()).isEmpty();
        assertThat(cost.microsPerEvent()).isNull();
    }

    private static ProcessStats.Usage usage(String process, long cpuMicros) {
        return new ProcessStats.Usage(process, 1, 0, cpuMicros, 0);
    }
}
