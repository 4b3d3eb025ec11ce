package io.agentrun.relay;

import io.agentrun.platform.config.PlatformConfiguration;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Import;

/** event-relay: applies the event topic to Redis and fans events out to api nodes. */
@SpringBootApplication
@Import(PlatformConfiguration.class)
public class RelayApplication {

    public static void main(String[] args) {
        SpringApplication.run(RelayApplication.class, args);
    }
}
