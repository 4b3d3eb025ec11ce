package io.agentrun.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.platform.kafka.KafkaClients;
import io.agentrun.platform.kafka.KafkaSettings;
import io.agentrun.platform.kafka.TopicProvisioner;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The topics the services create with {@code agentrun.kafka.replication-factor=3}: three replicas, two needed per write. */
@ExtendWith(RealInfrastructure.class)
class TopicsOnKafkaClusterIT {

    @Test
    void topicsCreatedWithThreeReplicasNeedTwoInSyncReplicasPerWrite() throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String bootstrap = RealInfrastructure.kafkaCluster().bootstrapServers();
        KafkaSettings settings = new KafkaSettings(bootstrap, "commands." + suffix, "events." + suffix, 4, 4, (short) 3,
                Duration.ofDays(7), true, "workers." + suffix, "relays." + suffix, Duration.ofMillis(1), Duration.ofSeconds(5));

        new TopicProvisioner(new KafkaClients(settings)).ensureTopics();

        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            for (String topic : List.of(settings.commandsTopic(), settings.eventsTopic())) {
                var description = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
                assertThat(description.partitions()).hasSize(4).allSatisfy(p -> assertThat(p.replicas()).hasSize(3));
                var config = admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, topic))).all()
                        .get(30, TimeUnit.SECONDS).values().iterator().next();
                assertThat(config.get("min.insync.replicas").value()).as(topic).isEqualTo("2");
                // set on the topic by the provisioner, not inherited from the brokers' default
                assertThat(config.get("min.insync.replicas").source()).isEqualTo(org.apache.kafka.clients.admin.ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
            }
        }
    }
}
