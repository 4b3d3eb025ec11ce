package io.agentrun.worker.observe;

import io.agentrun.platform.kafka.ClusterAdmin;
import io.agentrun.platform.kafka.KafkaSettings;
import io.agentrun.platform.pipeline.PipelineNode;
import io.agentrun.platform.pipeline.PipelineSettings;
import io.agentrun.platform.pipeline.PipelineSnapshots;
import io.agentrun.platform.pipeline.PipelineStore;
import io.agentrun.platform.schedule.SchedulingConfiguration;
import io.agentrun.worker.WorkerSettings;
import io.agentrun.worker.dispatch.ShareGroupDispatcher;
import io.agentrun.worker.lease.RunSweeper;
import io.agentrun.worker.run.RunSlots;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.TaskScheduler;

@Configuration(proxyBeanMethods = false)
class ObserveConfiguration {

    @Bean
    WorkerMetrics workerMetrics(MeterRegistry registry) {
        return new WorkerMetrics(registry);
    }

    /** This worker's meters for the console's pipeline page (backlog, runs in flight, runs failed). */
    @Bean
    PipelineSnapshots pipelineSnapshots(WorkerSettings worker, PipelineStore store, MeterRegistry registry, PipelineSettings settings,
            @Qualifier(SchedulingConfiguration.PERIODIC) TaskScheduler scheduler) {
        return new PipelineSnapshots(PipelineNode.started("worker", worker.id()), store, registry, settings, scheduler);
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
