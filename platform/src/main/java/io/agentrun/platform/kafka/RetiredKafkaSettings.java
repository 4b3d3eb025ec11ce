package io.agentrun.platform.kafka;

import java.util.Map;
import org.springframework.core.env.Environment;

/**
 * Refuses, before any bean is made, the {@code agentrun.kafka.*} properties of earlier releases that Spring Boot's
 * {@code spring.kafka.*} replaced: a deployment that still set them would otherwise talk to {@code localhost:9092}, create
 * topics it was told not to, or lose its linger, without a word.
 */
public final class RetiredKafkaSettings {

    private static final Map<String, String> REPLACED_BY = Map.of(
            "agentrun.kafka.bootstrap-servers", "spring.kafka.bootstrap-servers (KAFKA_BOOTSTRAP_SERVERS still sets it;"
                    + " as a variable of its own SPRING_KAFKA_BOOTSTRAP_SERVERS)",
            "agentrun.kafka.create-topics", "spring.kafka.admin.auto-create (SPRING_KAFKA_ADMIN_AUTO_CREATE=false where topics"
                    + " are managed elsewhere)",
            "agentrun.kafka.linger-time", "spring.kafka.producer.properties.linger.ms, in milliseconds"
                    + " (SPRING_KAFKA_PRODUCER_PROPERTIES_LINGER_MS)");

    private RetiredKafkaSettings() {
    }

    public static void check(Environment environment) {
        REPLACED_BY.forEach((retired, replacement) -> {
            if (environment.containsProperty(retired)) {
                throw new IllegalStateException(retired + " is no longer read: Kafka clients are configured with Spring Boot's"
                        + " spring.kafka.*; set " + replacement);
            }
        });
    }
}
