package io.agentrun.worker.observe;

import io.agentrun.platform.kafka.ClusterAdmin;
import io.agentrun.platform.kafka.KafkaSettings;
import io.agentrun.worker.dispatch.ShareGroupDispatcher;
import io.agentrun.worker.lease.RunSweeper;
import io.agentrun.worker.run.RunSlots;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class ObserveConfiguration {

    @Bean
    WorkerMetrics workerMetrics(MeterRegistry registry) {
        return new WorkerMetrics(registry);
    }

    /** A {@code MeterBinder}: Spring Boot binds it to the registry. */
    @Bean
    ShareGroupLag shareGroupLag(ClusterAdmin cluster, KafkaSettings kafka) {
        return new ShareGroupLag(cluster, kafka.workerGroup());
    }

    /**
     * The gauges and counters over the worker's parts, bound once every bean exists: the parts publish through
     * {@link WorkerMetrics}, so it cannot take them as constructor arguments.
     */
    @Bean
    SmartInitializingSingleton workerGauges(WorkerMetrics metrics, RunSlots slots, ShareGroupDispatcher dispatcher,
            RunSweeper sweeper) {
        return () -> {
            metrics.bind(slots);
            metrics.bind(dispatcher);
            metrics.bind(sweeper);
        };
    }
}
