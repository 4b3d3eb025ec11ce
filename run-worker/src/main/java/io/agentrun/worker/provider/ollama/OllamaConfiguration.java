package io.agentrun.worker.provider.ollama;

import io.agentrun.worker.provider.ModelSettings;
import io.agentrun.worker.provider.ProviderKeys;
import io.agentrun.worker.provider.springai.SpringAiChatModel;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class OllamaConfiguration {

    @Bean
    SpringAiChatModel ollamaChatModel(ProviderKeys keys, ModelSettings settings) {
        return new SpringAiChatModel(new OllamaProvider(), keys, settings.responseTimeout());
    }
}
