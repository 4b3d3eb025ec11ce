package io.agentrun.platform.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.infra.testing.RealInfrastructure;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.ProducerFactory;

/** Kafka as the services get it: Spring Boot's auto-configuration with {@link KafkaConfiguration}, on a real broker. */
@ExtendWith(RealInfrastructure.class)
class KafkaConfigurationIT {

    private final String suffix = UUID.randomUUID().toString().substring(0, 8);

    private ApplicationContextRunner services(String... properties) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkaAutoConfiguration.class))
                .withUserConfiguration(KafkaConfiguration.class)
                .withPropertyValues("spring.kafka.bootstrap-servers=" + RealInfrastructure.kafkaBootstrapServers(),
                        "spring.kafka.admin.fail-fast=true", "agentrun.kafka.commands-topic=commands." + suffix,
                        "agentrun.kafka.events-topic=events." + suffix)
                .withPropertyValues(properties);
    }

    @Test
    void ourClientSettingsHoldAndOperatorsTuneTheRestWithSpringKafkaProperties() {
        services("spring.kafka.producer.acks=1", "spring.kafka.producer.properties.linger.ms=7",
                "spring.kafka.consumer.value-deserializer=org.apache.kafka.common.serialization.StringDeserializer",
                "spring.kafka.consumer.max-poll-records=77").run(context -> {
            Map<String, Object> producer = context.getBean(ProducerFactory.class).getConfigurationProperties();
            assertThat(producer).as("the contract wins").containsEntry(ProducerConfig.ACKS_CONFIG, "all")
                    .containsEntry(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true)
                    .containsEntry(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
            assertThat(producer).as("tuned by the operator").containsEntry(ProducerConfig.LINGER_MS_CONFIG, "7");
            assertThat(producer).as("our default").containsEntry(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);

            Map<String, Object> consumer = context.getBean(ConsumerFactory.class).getConfigurationProperties();
            assertThat(consumer).containsEntry(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class)
                    .containsEntry(ConsumerConfig.RECEIVE_BUFFER_CONFIG, -1).containsEntry(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 77);

            var template = context.getBean(KafkaTemplates.class).template("test-" + suffix);
            try {
                assertThat(template.getProducerFactory().getConfigurationProperties())
                        .as("request timeout (5 s) + linger: the least delivery timeout Kafka takes")
                        .containsEntry(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 5007)
                        .containsEntry(ProducerConfig.CLIENT_ID_CONFIG, "test-" + suffix);
            } finally {
                template.destroy();
            }
            var lingering = context.getBean(KafkaTemplates.class).template("events-" + suffix, java.time.Duration.ZERO,
                    java.time.Duration.ofMillis(5));
            try {
                assertThat(lingering.getProducerFactory().getConfigurationProperties())
                        .as("a producer's own linger (the worker's events) beats the factory's, and counts in the floor")
                        .containsEntry(ProducerConfig.LINGER_MS_CONFIG, 5).containsEntry(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 5005);
            } finally {
                lingering.destroy();
            }
        });
    }

    @Test
    void missingTopicsAreCreatedAtStartUpAndExistingOnesLeftAsTheyAre() throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic("events." + suffix, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }

        services("agentrun.kafka.command-partitions=3", "agentrun.kafka.event-partitions=5", "agentrun.kafka.event-retention=2d")
                .run(context -> assertThat(context).hasNotFailed());

        try (Admin admin = admin()) {
            var topics = admin.describeTopics(List.of("commands." + suffix, "events." + suffix)).allTopicNames().get(30, TimeUnit.SECONDS);
            assertThat(topics.get("commands." + suffix).partitions()).hasSize(3);
            assertThat(topics.get("events." + suffix).partitions()).as("an existing keyed topic gets no partitions added").hasSize(1);
            var config = admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, "commands." + suffix))).all()
                    .get(30, TimeUnit.SECONDS).values().iterator().next();
            assertThat(config.get("retention.ms").value()).as("the commands keep the broker's retention").isEqualTo("604800000");
        }
    }

    @Test
    void theEventTopicIsCreatedWithItsRetentionAndNothingWhenAutoCreateIsOff() throws Exception {
        services("spring.kafka.admin.auto-create=false").run(context -> assertThat(context).hasNotFailed());
        try (Admin admin = admin()) {
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).doesNotContain("events." + suffix);
        }

        services("agentrun.kafka.event-retention=2d").run(context -> assertThat(context).hasNotFailed());
        try (Admin admin = admin()) {
            var config = admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, "events." + suffix))).all()
                    .get(30, TimeUnit.SECONDS).values().iterator().next();
            assertThat(config.get("retention.ms").value()).isEqualTo(String.valueOf(TimeUnit.DAYS.toMillis(2)));
        }
    }

    @Test
    void aPropertyThatSpringKafkaReplacedStopsTheStartNamingItsReplacement() {
        services("agentrun.kafka.bootstrap-servers=localhost:9092").run(context -> assertThat(failure(context))
                .hasMessageContaining("agentrun.kafka.bootstrap-servers is no longer read").hasMessageContaining("spring.kafka.bootstrap-servers"));
        services("agentrun.kafka.create-topics=false").run(context -> assertThat(failure(context))
                .hasMessageContaining("spring.kafka.admin.auto-create"));
        services("agentrun.kafka.linger-time=1ms").run(context -> assertThat(failure(context))
                .hasMessageContaining("spring.kafka.producer.properties.linger.ms"));
    }

    private static Throwable failure(AssertableApplicationContext context) {
        assertThat(context).hasFailed();
        return NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure());
    }

    private static Admin admin() {
        return Admin.create(Map.of("bootstrap.servers", RealInfrastructure.kafkaBootstrapServers()));
    }
}
