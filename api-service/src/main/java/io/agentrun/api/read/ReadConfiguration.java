package io.agentrun.api.read;

import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.ProjectRuns;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.StateSettings;
import java.time.Clock;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The reads' own parts: a project's runs index and its listing. */
@Configuration(proxyBeanMethods = false)
class ReadConfiguration {

    @Bean
    ProjectRuns projectRuns(RedisConnections redis, StateSettings settings, Clock clock) {
        return new ProjectRuns(redis, settings, clock);
    }

    @Bean
    RunListing runListing(ProjectRuns index, RunStore runs) {
        return new RunListing(index, runs);
    }
}
