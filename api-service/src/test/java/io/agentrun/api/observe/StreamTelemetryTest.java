package io.agentrun.api.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import org.junit.jupiter.api.Test;

class StreamTelemetryTest {

    @Test
    void firstEventKeepsOneTimerPerAgentAndABoundedNumberOfSeries() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        StreamTelemetry telemetry = new StreamTelemetry(registry, OpenTelemetry.noop().getTracer("test"));
        int agents = StreamTelemetry.MAX_AGENT_SERIES + 300;
        for (int stream = 0; stream < 2 * agents; stream++) {
            telemetry.firstEvent("agent-" + (stream % agents), System.nanoTime());
        }

        var timers = registry.find("agentrun.stream.first_event").timers();
        assertThat(timers).hasSize(StreamTelemetry.MAX_AGENT_SERIES + 1);
        assertThat(timers.stream().mapToLong(Timer::count).sum()).as("every stream recorded").isEqualTo(2L * agents);
        assertThat(registry.get("agentrun.stream.first_event").tag("agent", "agent-0").timer().count()).isEqualTo(2);
        assertThat(registry.get("agentrun.stream.first_event").tag("agent", StreamTelemetry.OTHER_AGENTS).timer().count())
                .isEqualTo(2L * (agents - StreamTelemetry.MAX_AGENT_SERIES));
    }
}
