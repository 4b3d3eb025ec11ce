package io.agentrun.worker;

import java.time.Clock;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What every part of a worker shares. Each capability wires itself in its own package ({@code model/}, {@code tool/},
 * {@code attachment/}, {@code agent/}, {@code cancel/}, {@code emit/}, {@code run/}, {@code dispatch/}, {@code lease/},
 * {@code observe/}), so its types can stay package-private.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(WorkerSettings.class)
class WorkerConfiguration {

    @Bean
    Clock clock() {
        return Clock.systemUTC();
    }
}
