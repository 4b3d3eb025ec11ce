package io.agentrun.worker.provider;

import java.util.List;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The model providers a worker can call, by name (each provider wires itself in its own package). */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ModelSettings.class)
class ModelConfiguration {

    @Bean
    ScriptedModel scriptedModel() {
        return new ScriptedModel();
    }

    @Bean
    ProviderKeys providerKeys() {
        return ProviderKeys.fromEnvironment();
    }

    @Bean
    ModelRegistry modelRegistry(List<ChatModel> models) {
        return new ModelRegistry(models);
    }
}
