package io.agentrun.api.problem;

import io.agentrun.model.json.JsonCodec;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.http.converter.HttpMessageConverters;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Malformed and ambiguous requests are refused before the security chains or any handler sees them, filters answer
 * through the same exception table as handlers, and JSON bodies bind to handler parameters only through
 * {@link StrictJsonBodies}.
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

    /**
     * Around the request-shape check and the security chains (Spring Security's filter runs at its default order). The
     * resolver lazily: filters are created as the server starts, before MVC's configuration is complete.
     */
    @Bean
    FilterProblems filterProblems(@Lazy @Qualifier("handlerExceptionResolver") HandlerExceptionResolver exceptions) {
        return new FilterProblems(exceptions);
    }

    @Bean
    FilterRegistrationBean<FilterProblems> filterProblemsRegistration(FilterProblems filterProblems) {
        FilterRegistrationBean<FilterProblems> registration = new FilterRegistrationBean<>(filterProblems);
        registration.setOrder(SecurityFilterProperties.DEFAULT_FILTER_ORDER - 2);
        return registration;
    }

    @Bean
    FilterRegistrationBean<RequestShape> requestShape() {
        FilterRegistrationBean<RequestShape> registration = new FilterRegistrationBean<>(new RequestShape());
        registration.setOrder(SecurityFilterProperties.DEFAULT_FILTER_ORDER - 1);
        return registration;
    }

    @Bean
    ProblemResponses problemResponses() {
        return new ProblemResponses(codec);
    }

    @Bean
    JsonAnswers jsonAnswers() {
        return new JsonAnswers(codec);
    }
}
