package io.agentrun.worker.provider.anthropic;

import com.anthropic.core.Timeout;
import io.agentrun.worker.provider.ModelSettings;
import io.agentrun.worker.provider.ProviderKeys;
import java.time.Duration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class AnthropicConfiguration {

    /** The run's timeout is what ends a stream; the SDK's whole-call bound is only a backstop. */
    @Bean
    AnthropicChatModel anthropicChatModel(ProviderKeys keys, ModelSettings settings) {
        return new AnthropicChatModel(keys, Timeout.builder().connect(settings.connectTimeout()).read(settings.responseTimeout())
                .request(Duration.ofMinutes(30)).build());
    }
}
