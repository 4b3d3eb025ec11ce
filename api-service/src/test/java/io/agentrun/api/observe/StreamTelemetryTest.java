package io.agentrun.api.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.SplittableRandom;
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

    @Test
    void readsCreatedAtAsInstantParseDoes() {
        SplittableRandom random = new SplittableRandom(14);
        for (int i = 0; i < 10_000; i++) {
            // 1970 .. 2200, truncated to the millisecond as the worker stamps it; every 10th on a whole second
            Instant at = Instant.ofEpochMilli(random.nextLong(7_258_118_400_000L));
            if (i % 10 == 0) {
                at = at.truncatedTo(ChronoUnit.SECONDS);
            }
            String text = "x\"" + at + "\"y";
            assertThat(StreamTelemetry.epochMillis(text, 2, text.length() - 2)).as(at.toString()).isEqualTo(at.toEpochMilli());
        }
    }

    @Test
    void otherFormsGoToInstantParse() {
        String micros = "2026-11-23T20:01:02.123456Z";
        assertThat(StreamTelemetry.epochMillis(micros, 0, micros.length())).isEqualTo(Instant.parse(micros).toEpochMilli());
        String garbage = "2026-11-23T2x:01:02.123Z";
        assertThatThrownBy(() -> StreamTelemetry.epochMillis(garbage, 0, garbage.length())).isInstanceOf(NumberFormatException.class);
        String notATime = "yesterday";
        assertThatThrownBy(() -> StreamTelemetry.epochMillis(notATime, 0, notATime.length())).isInstanceOf(DateTimeParseException.class);
    }
}
