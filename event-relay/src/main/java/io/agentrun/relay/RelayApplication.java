package io.agentrun.relay;

import io.agentrun.platform.config.PlatformConfiguration;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Import;

/** event-relay: applies the event topic to Redis and fans events out to api nodes. */
@SpringBootApplication
@Import(PlatformConfiguration.class)
public class RelayApplication {

    public static void main(String[] args) {
        builder().run(args);
    }

    /**
     * The application with its own configuration file, {@code event-relay.yml}: services may share a classpath
     * (tests run all three in one JVM), so none of them reads a plain {@code application.yml}.
     */
    public static SpringApplicationBuilder builder() {
        return new SpringApplicationBuilder(RelayApplication.class).properties("spring.config.name=event-relay");
    }
}
