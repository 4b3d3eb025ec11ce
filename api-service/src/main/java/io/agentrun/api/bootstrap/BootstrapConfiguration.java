package io.agentrun.api.bootstrap;

import io.agentrun.api.admin.Projects;
import io.agentrun.api.caller.KeyStore;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.store.AgentCatalog;
import io.agentrun.platform.store.ContextStore;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(BootstrapSettings.class)
class BootstrapConfiguration {

    @Bean
    Bootstrap bootstrap(BootstrapSettings settings, AgentCatalog agents, ContextStore contexts, KeyStore keys, Projects projects,
            JsonCodec codec) {
        return new Bootstrap(settings, agents, contexts, keys, projects, codec);
    }
}
