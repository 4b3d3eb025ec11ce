package io.agentrun.api.problem;

import io.agentrun.model.json.JsonCodec;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/** Malformed and ambiguous requests are refused before any other interceptor or handler sees them. */
@Configuration(proxyBeanMethods = false)
class ProblemConfiguration implements WebMvcConfigurer {

    @Override
    public void addInterceptors(InterceptorRegistry registry) {
        registry.addInterceptor(new RequestShape()).order(Ordered.HIGHEST_PRECEDENCE);
    }

    @Bean
    ProblemResponses problemResponses(JsonCodec codec) {
        return new ProblemResponses(codec);
    }
}
