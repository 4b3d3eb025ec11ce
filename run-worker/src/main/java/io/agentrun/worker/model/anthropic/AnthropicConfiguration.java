package io.agentrun.worker.model.anthropic;

import io.agentrun.worker.model.http.ProviderHttp;
import io.agentrun.worker.model.http.ProviderKeys;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class AnthropicConfiguration {

    @Bean
    AnthropicChatModel anthropicChatModel(ProviderHttp http, ProviderKeys keys) {
        return new AnthropicChatModel(http, keys);
    }
}
