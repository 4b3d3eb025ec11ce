package io.agentrun.platform.observe;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * Counters that read running totals a component keeps itself (a {@code LongAdder} behind a getter), as one
 * {@link MeterBinder} bean that Spring Boot binds to the registry.
 *
 * @param source whose totals are read
 * @param totals one counter each
 */
public record TotalCounters<T>(T source, List<Total<T>> totals) implements MeterBinder {

    /** One counter: its name, the getter of its total, and what it counts. */
    public record Total<T>(String name, ToDoubleFunction<T> total, String description) {
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        totals.forEach(counter -> FunctionCounter.builder(counter.name(), source, counter.total())
                .description(counter.description()).register(registry));
    }
}
