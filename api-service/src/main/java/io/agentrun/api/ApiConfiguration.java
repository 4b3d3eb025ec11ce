package io.agentrun.api;

import io.agentrun.api.problem.ResponseSchemaCheck;
import io.agentrun.platform.jsonschema.AnswerSchemas;
import java.time.Clock;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What every part of an api node shares. Each capability wires itself in its own package ({@code auth/},
 * {@code admin/}, {@code problem/}, {@code live/}, {@code stream/}, {@code run/}, {@code upload/}, {@code bootstrap/},
 * {@code health/}), so its types can stay package-private.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ApiSettings.class)
class ApiConfiguration {

    @Bean
    Clock clock() {
        return Clock.systemUTC();
    }

    /** Checks {@code response_format} schemas of run requests and agent definitions, within the api's limits. */
    @Bean
    ResponseSchemaCheck responseSchemaCheck(ApiSettings settings) {
        return new ResponseSchemaCheck(new AnswerSchemas(settings.maxResponseSchemaBytes(), settings.maxResponseSchemaDepth()));
    }
}
