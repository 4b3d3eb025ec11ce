package io.agentrun.e2e.suites;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.e2e.fixture.SuiteLanes;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.platform.kafka.KafkaConfiguration;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConfigEntry.ConfigSource;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The topics the services create with {@code agentrun.kafka.replication-factor=3}: three replicas, two needed per write.
 * Created as the services create them: Spring Boot's {@code KafkaAdmin} with our {@code NewTopic} beans, at start-up.
 */
@ExtendWith(RealInfrastructure.class)
@ResourceLock(value = SuiteLanes.KAFKA_CLUSTER, mode = ResourceAccessMode.READ)
class TopicsOnKafkaClusterIT {

    @Test
    void topicsCreatedWithThreeReplicasNeedTwoInSyncReplicasPerWrite() throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String bootstrap = RealInfrastructure.kafkaCluster().bootstrapServers();
        List<String> topics = List.of("commands." + suffix, "events." + suffix);

        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(KafkaAutoConfiguration.class))
                .withUserConfiguration(KafkaConfiguration.class)
                .withPropertyValues("spring.kafka.bootstrap-servers=" + bootstrap, "spring.kafka.admin.fail-fast=true",
                        "agentrun.kafka.commands-topic=" + topics.get(0), "agentrun.kafka.events-topic=" + topics.get(1),
                        "agentrun.kafka.command-partitions=4", "agentrun.kafka.event-partitions=4", "agentrun.kafka.replication-factor=3")
                .run(context -> assertThat(context).hasNotFailed());

        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            for (String topic : topics) {
                // A broker learns of a new topic from the controller's metadata a moment after its creation: until
                // then it answers UnknownTopicOrPartition (CI at 166e1c2).
                var description = org.awaitility.Awaitility.await("every broker to know " + topic).atMost(Duration.ofSeconds(30))
                        .ignoreExceptions().until(() -> admin.describeTopics(List.of(topic)).allTopicNames().get(5, TimeUnit.SECONDS).get(topic),
                                known -> known != null);
                assertThat(description.partitions()).hasSize(4).allSatisfy(p -> assertThat(p.replicas()).hasSize(3));
                var config = admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, topic))).all()
                        .get(30, TimeUnit.SECONDS).values().iterator().next();
                assertThat(config.get("min.insync.replicas").value()).as(topic).isEqualTo("2");
                // set on the topic at its creation, not inherited from the brokers' default
                assertThat(config.get("min.insync.replicas").source()).isEqualTo(ConfigSource.DYNAMIC_TOPIC_CONFIG);
            }
        }
    }
}
