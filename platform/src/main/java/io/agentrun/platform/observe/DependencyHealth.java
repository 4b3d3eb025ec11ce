package io.agentrun.platform.observe;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * One dependency as a health indicator (in the readiness group: a node that cannot reach Redis or Kafka
 * should get no traffic, but must not be restarted for it) and as the gauge
 * {@code agentrun.dependency.up{dependency=…}} (1 reachable, 0 not).
 */
public final class DependencyHealth implements HealthIndicator, MeterBinder {

    private final DependencyCheck check;

    public DependencyHealth(DependencyCheck check) {
        this.check = check;
    }

    @Override
    public Health health() {
        DependencyCheck.Result result = check.check();
        return (result.up() ? Health.up() : Health.down()).withDetail(check.name(), result.detail()).build();
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder("agentrun.dependency.up", check, c -> c.check().up() ? 1 : 0)
                .tag("dependency", check.name())
                .description("1 when this node reaches the dependency, 0 when not (checked at most every few seconds)")
                .register(registry);
    }
}
