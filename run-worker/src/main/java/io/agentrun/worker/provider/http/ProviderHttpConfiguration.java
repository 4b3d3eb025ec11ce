package io.agentrun.worker.provider.http;

import io.agentrun.worker.provider.ModelSettings;
import java.net.http.HttpClient;
import java.util.concurrent.Executors;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class ProviderHttpConfiguration {

    @Bean
    ProviderKeys providerKeys() {
        return ProviderKeys.fromEnvironment();
    }

    /** One HTTP client for every provider: never follows a redirect (a provider's key must not travel elsewhere). */
    @Bean
    ProviderHttp providerHttp(ModelSettings settings) {
        HttpClient client = HttpClient.newBuilder()
                .connectTimeout(settings.connectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER)
                .executor(Executors.newVirtualThreadPerTaskExecutor())
                .build();
        return new ProviderHttp(client, settings.responseTimeout());
    }
}
