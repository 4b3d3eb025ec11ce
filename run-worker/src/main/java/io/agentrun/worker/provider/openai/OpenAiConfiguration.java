package io.agentrun.worker.provider.openai;

import io.agentrun.worker.provider.ModelSettings;
import io.agentrun.worker.provider.ProviderKeys;
import io.agentrun.worker.provider.springai.SpringAiChatModel;
import java.time.Duration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class OpenAiConfiguration {

    @Bean
    SpringAiChatModel openAiChatModel(ProviderKeys keys, ModelSettings settings) {
        return new SpringAiChatModel(new OpenAiProvider(Duration.ofMinutes(30)), keys, settings.responseTimeout());
    }
}
