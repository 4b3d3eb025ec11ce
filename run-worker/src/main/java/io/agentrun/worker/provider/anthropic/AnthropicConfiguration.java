package io.agentrun.worker.provider.anthropic;

import io.agentrun.worker.provider.http.ProviderHttp;
import io.agentrun.worker.provider.http.ProviderKeys;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class AnthropicConfiguration {

    @Bean
    AnthropicChatModel anthropicChatModel(ProviderHttp http, ProviderKeys keys) {
        return new AnthropicChatModel(http, keys);
    }
}
