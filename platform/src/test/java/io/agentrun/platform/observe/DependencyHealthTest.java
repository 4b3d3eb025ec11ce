package io.agentrun.platform.observe;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Status;

class DependencyHealthTest {

    @Test
    void aDependencyThatStopsAnsweringTurnsHealthDownAndTheGaugeToZero() {
        AtomicBoolean answering = new AtomicBoolean(true);
        DependencyHealth health = new DependencyHealth(new DependencyCheck("redis", Duration.ZERO, () -> {
            if (!answering.get()) {
                throw new IllegalStateException("Connection refused");
            }
            return "PONG";
        }));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        health.bindTo(registry);

        assertThat(health.health().getStatus()).isEqualTo(Status.UP);
        assertThat(registry.get("agentrun.dependency.up").tag("dependency", "redis").gauge().value()).isEqualTo(1);
        answering.set(false);
        assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
        assertThat(health.health().getDetails()).containsEntry("redis", "Connection refused");
        assertThat(registry.get("agentrun.dependency.up").tag("dependency", "redis").gauge().value()).isZero();
    }

    @Test
    void probesAreAskedAtMostOncePerTtl() {
        AtomicInteger asked = new AtomicInteger();
        DependencyCheck check = new DependencyCheck("kafka", Duration.ofHours(1), () -> "asked " + asked.incrementAndGet());

        check.check();
        check.check();

        assertThat(asked).hasValue(1);
    }
}
