package io.agentrun.platform.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Creates the command and event topics when they are missing; existing topics are left as they are. */
public final class TopicProvisioner {

    private static final Logger log = LoggerFactory.getLogger(TopicProvisioner.class);

    private final KafkaClients clients;

    public TopicProvisioner(KafkaClients clients) {
        this.clients = clients;
    }

    public void ensureTopics() {
        KafkaSettings s = clients.settings();
        if (!s.createTopics()) {
            return;
        }
        Optional<Short> replicas = s.replicationFactor() > 0 ? Optional.of(s.replicationFactor()) : Optional.empty();
        // With three replicas or more, a write (acks=all) needs two of them: one broker may be lost without losing
        // an acknowledged record, and writes go on meanwhile. Otherwise the broker's default applies.
        Map<String, String> durability = s.replicationFactor() >= 3 ? Map.of(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "2") : Map.of();
        NewTopic commands = new NewTopic(s.commandsTopic(), Optional.of(s.commandPartitions()), replicas).configs(durability);
        Map<String, String> eventConfigs = new java.util.HashMap<>(durability);
        eventConfigs.put(TopicConfig.RETENTION_MS_CONFIG, String.valueOf(s.eventRetention().toMillis()));
        NewTopic events = new NewTopic(s.eventsTopic(), Optional.of(s.eventPartitions()), replicas).configs(eventConfigs);
        try (Admin admin = clients.admin("agentrun-topic-provisioner")) {
            Set<String> existing = admin.listTopics().names().get();
            List<NewTopic> missing = new ArrayList<>();
            for (NewTopic topic : List.of(commands, events)) {
                if (!existing.contains(topic.name())) {
                    missing.add(topic);
                }
            }
            create(admin, missing);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("could not list or create Kafka topics at " + s.bootstrapServers(), e.getCause());
        }
    }

    private static void create(Admin admin, List<NewTopic> missing) throws InterruptedException, ExecutionException {
        for (var entry : admin.createTopics(missing).values().entrySet()) {
            try {
                entry.getValue().get();
                log.info("created Kafka topic {}", entry.getKey());
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
                // another service instance created it at the same moment
            }
        }
    }
}
