package io.agentrun.api.problem;

import io.agentrun.model.json.JsonCodec;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.http.converter.HttpMessageConverters;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Malformed and ambiguous requests are refused before any other interceptor or handler sees them, and JSON bodies
 * bind to handler parameters only through {@link StrictJsonBodies}.
 */
@Configuration(proxyBeanMethods = false)
class ProblemConfiguration implements WebMvcConfigurer {

    private final JsonCodec codec;

    ProblemConfiguration(JsonCodec codec) {
        this.codec = codec;
    }

    @Override
    public void configureMessageConverters(HttpMessageConverters.ServerBuilder converters) {
        converters.addCustomConverter(new StrictJsonBodies(codec));
    }

    @Override
    public void addInterceptors(InterceptorRegistry registry) {
        registry.addInterceptor(new RequestShape()).order(Ordered.HIGHEST_PRECEDENCE);
    }

    @Bean
    ProblemResponses problemResponses() {
        return new ProblemResponses(codec);
    }
}
