package io.agentrun.api.observe;

import io.agentrun.api.live.LiveEvents;
import io.agentrun.platform.pipeline.PipelineNode;
import io.agentrun.platform.pipeline.PipelineSettings;
import io.agentrun.platform.pipeline.PipelineSnapshots;
import io.agentrun.platform.pipeline.PipelineStore;
import io.agentrun.platform.schedule.SchedulingConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.TaskScheduler;

@Configuration(proxyBeanMethods = false)
class ObserveConfiguration {

    /** This node's meters for the console's pipeline page (streams open, events delivered, TTFE, 5xx answers). */
    @Bean
    PipelineSnapshots pipelineSnapshots(LiveEvents live, PipelineStore store, MeterRegistry registry, PipelineSettings settings,
            @Qualifier(SchedulingConfiguration.PERIODIC) TaskScheduler scheduler) {
        return new PipelineSnapshots(PipelineNode.started("api", live.nodeId()), store, registry, settings, scheduler);
    }
}
