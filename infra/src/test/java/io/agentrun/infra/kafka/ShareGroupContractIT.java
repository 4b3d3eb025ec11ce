package io.agentrun.infra.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.agentrun.infra.testing.RealInfrastructure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The share-group behaviour run-worker's dispatcher is built on, checked against the real broker this
 * module starts — so a Kafka upgrade that changes it fails here first, with a clear name.
 */
@ExtendWith(RealInfrastructure.class)
class ShareGroupContractIT {

    private final String bootstrap = RealInfrastructure.kafkaBootstrapServers();

    @Test
    void shareGroupsAreEnabledOnTheLocalBroker() throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            var features = admin.describeFeatures().featureMetadata().get().finalizedFeatures();
            assertThat(features).containsKey("share.version");
            assertThat(features.get("share.version").maxVersionLevel()).isGreaterThanOrEqualTo((short) 1);
        }
    }

    @Test
    void explicitModeDemandsAnAcknowledgementOfEveryRecordBeforeTheNextPoll() throws Exception {
        String topic = topicWithRecords(1);
        try (var consumer = consumer(topic)) {
            pollUntil(consumer, 1);
            assertThatThrownBy(() -> consumer.poll(Duration.ofMillis(100)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("acknowledged");
        }
    }

    @Test
    void renewedRecordsComeBackToTheSameConsumerWithoutAnotherDelivery() throws Exception {
        String topic = topicWithRecords(3);
        try (var consumer = consumer(topic)) {
            List<ConsumerRecord<String, String>> first = pollUntil(consumer, 3);
            first.forEach(r -> consumer.acknowledge(r, AcknowledgeType.RENEW));

            List<ConsumerRecord<String, String>> back = pollUntil(consumer, 3);
            assertThat(back).extracting(ConsumerRecord::offset)
                    .containsExactlyInAnyOrderElementsOf(first.stream().map(ConsumerRecord::offset).toList());
            assertThat(back).allSatisfy(r -> assertThat(r.deliveryCount()).contains((short) 1));
            back.forEach(r -> consumer.acknowledge(r, AcknowledgeType.ACCEPT));
            assertThat(consumer.commitSync(Duration.ofSeconds(10)).values()).allSatisfy(error -> assertThat(error).isEmpty());
        }
    }

    /**
     * What run-worker's dispatcher relies on: a record accepted at once does not hold anything up, so a
     * record produced afterwards is handed out by the next poll (well within a second).
     */
    @Test
    void aRecordAcceptedAtOnceLetsTheNextOneThroughAtOnce() throws Exception {
        String topic = topicWithRecords(1);
        try (var consumer = consumer(topic);
                var producer = new KafkaProducer<>(Map.<String, Object>of("bootstrap.servers", bootstrap),
                        new StringSerializer(), new StringSerializer())) {
            pollUntil(consumer, 1).forEach(r -> consumer.acknowledge(r, AcknowledgeType.ACCEPT));
            producer.send(new ProducerRecord<>(topic, "k", "next")).get();
            long sent = System.nanoTime();

            List<String> next = new ArrayList<>();
            while (next.isEmpty() && System.nanoTime() - sent < Duration.ofSeconds(10).toNanos()) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                    next.add(record.value());
                    consumer.acknowledge(record, AcknowledgeType.ACCEPT);
                }
            }
            assertThat(next).containsExactly("next");
            assertThat(Duration.ofNanos(System.nanoTime() - sent)).isLessThan(Duration.ofSeconds(2));
        }
    }

    /** What the dispatcher does when Redis cannot be reached to claim a run: RELEASE, and the record comes back. */
    @Test
    void aReleasedRecordIsDeliveredAgainWithAHigherDeliveryCount() throws Exception {
        String topic = topicWithRecords(1);
        try (var consumer = consumer(topic)) {
            ConsumerRecord<String, String> first = pollUntil(consumer, 1).getFirst();
            consumer.acknowledge(first, AcknowledgeType.RELEASE);

            ConsumerRecord<String, String> again = pollUntil(consumer, 1).getFirst();
            assertThat(again.offset()).isEqualTo(first.offset());
            assertThat(again.deliveryCount()).contains((short) 2);
            consumer.acknowledge(again, AcknowledgeType.ACCEPT);
        }
    }

    /**
     * Kafka 4.2.2's share consumer fetches nothing new while it holds a record with RENEW: a record produced
     * meanwhile is handed out only after the held one is accepted — and records acquired meanwhile sit in the
     * client, their locks running out. This is why workers never hold a command while its run executes
     * (they claim the run in Redis and accept the record at once; docs/architecture.md).
     */
    @Test
    void whileARecordIsHeldWithRenewNoNewRecordIsHandedOut() throws Exception {
        String topic = topicWithRecords(1);
        try (var consumer = consumer(topic);
                var producer = new KafkaProducer<>(Map.<String, Object>of("bootstrap.servers", bootstrap),
                        new StringSerializer(), new StringSerializer())) {
            ConsumerRecord<String, String> held = pollUntil(consumer, 1).getFirst();
            producer.send(new ProducerRecord<>(topic, "k", "produced while holding")).get();

            consumer.acknowledge(held, AcknowledgeType.RENEW);

            List<String> seenWhileHolding = new ArrayList<>();
            long holdUntil = System.nanoTime() + Duration.ofSeconds(3).toNanos();
            boolean accepted = false;
            List<String> after = new ArrayList<>();
            long deadline = holdUntil + Duration.ofSeconds(10).toNanos();
            while (after.isEmpty() && System.nanoTime() < deadline) {
                boolean holding = System.nanoTime() < holdUntil; // three seconds of observation, then let go
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(25))) {
                    if (record.offset() == held.offset()) {
                        consumer.acknowledge(record, holding ? AcknowledgeType.RENEW : AcknowledgeType.ACCEPT);
                        accepted |= !holding;
                    } else {
                        (accepted ? after : seenWhileHolding).add(record.value());
                        consumer.acknowledge(record, AcknowledgeType.ACCEPT);
                    }
                }
            }
            assertThat(seenWhileHolding).as("records handed out while one was held").isEmpty();
            assertThat(after).as("handed out once the held record was accepted").containsExactly("produced while holding");
        }
    }

    /** Polls (acknowledging RENEW whatever is not yet wanted) until {@code count} records arrived in one batch. */
    private static List<ConsumerRecord<String, String>> pollUntil(KafkaShareConsumer<String, String> consumer, int count) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        List<ConsumerRecord<String, String>> got = new ArrayList<>();
        while (System.nanoTime() < deadline) {
            got.forEach(r -> consumer.acknowledge(r, AcknowledgeType.RENEW));
            got.clear();
            consumer.poll(Duration.ofMillis(500)).forEach(got::add);
            if (got.size() >= count) {
                return got;
            }
        }
        throw new AssertionError("expected " + count + " records in one poll, last poll had " + got.size());
    }

    private KafkaShareConsumer<String, String> consumer(String topic) {
        String group = "contract-" + UUID.randomUUID();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.GROUP, group), List.of(
                    new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET))))
                    .all().get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        var consumer = new KafkaShareConsumer<>(Map.<String, Object>of(
                "bootstrap.servers", bootstrap, "group.id", group, "share.acknowledgement.mode", "explicit"),
                new StringDeserializer(), new StringDeserializer());
        consumer.subscribe(List.of(topic));
        return consumer;
    }

    private String topicWithRecords(int count) throws Exception {
        String topic = "contract-" + UUID.randomUUID();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        try (var producer = new KafkaProducer<>(Map.<String, Object>of("bootstrap.servers", bootstrap),
                new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, "k", "v" + i)).get();
            }
        }
        return topic;
    }
}
