package io.agentrun.worker.provider.gemini;

import io.agentrun.worker.provider.ModelSettings;
import io.agentrun.worker.provider.ProviderKeys;
import io.agentrun.worker.provider.springai.SpringAiChatModel;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class GeminiConfiguration {

    @Bean
    SpringAiChatModel geminiChatModel(ProviderKeys keys, ModelSettings settings) {
        return new SpringAiChatModel(new GeminiProvider(settings.connectTimeout(), settings.responseTimeout()), keys,
                settings.responseTimeout());
    }
}
