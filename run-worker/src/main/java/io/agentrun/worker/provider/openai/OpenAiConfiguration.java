package io.agentrun.worker.provider.openai;

import io.agentrun.worker.provider.http.ProviderHttp;
import io.agentrun.worker.provider.http.ProviderKeys;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class OpenAiConfiguration {

    @Bean
    OpenAiChatModel openAiChatModel(ProviderHttp http, ProviderKeys keys) {
        return new OpenAiChatModel(http, keys);
    }
}
