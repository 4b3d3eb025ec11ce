package io.agentrun.api.live;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.command.RunInput;
import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.id.Ids;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.kafka.ClientDefaults;
import io.agentrun.platform.kafka.KafkaSettings;
import io.agentrun.platform.kafka.TopicReaders;
import io.agentrun.platform.kafka.RunEventLog;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.store.RunStore;
import io.agentrun.platform.store.StateSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A run's events read back from Kafka when the resume buffer lacks them: only what the relay applied. */
@ExtendWith(RealInfrastructure.class)
class BacklogIT {

    private static final JsonCodec CODEC = new JsonCodec();
    private static final String EVENTS = "backlog-events-" + UUID.randomUUID();
    static RedisConnections redis;
    static Backlog backlog;

    @BeforeAll
    static void connect() throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", RealInfrastructure.kafkaBootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(EVENTS, 1, (short) 1))).all().get();
        }
        redis = RedisConnections.connect(RealInfrastructure.redisUrl());
        var clients = new KafkaProperties();
        clients.setBootstrapServers(List.of(RealInfrastructure.kafkaBootstrapServers()));
        var kafka = new TopicReaders(ClientDefaults.consumerFactory(clients),
                new KafkaSettings("c", EVENTS, 1, 1, (short) -1, Duration.ofDays(1), "w", "r", Duration.ofSeconds(5)));
        var runs = new RunStore(redis, new StateSettings(Duration.ofDays(1), Duration.ofDays(1), Duration.ofMinutes(1),
                Duration.ofHours(1), 1000, Duration.ofSeconds(30)));
        backlog = new Backlog(new ResumeBuffer(redis, CODEC), runs, new RunEventLog(kafka), CODEC);
    }

    @AfterAll
    static void close() {
        redis.close();
    }

    @Test
    void eventsInKafkaThatTheRelayHasNotAppliedAreNotServed() throws Exception {
        // The worker wrote 0..3, the relay applied 0..1 (then Redis and Kafka went away, say): 2 and 3 may yet be
        // fenced by a takeover whose attempt reuses their seqs.
        String runId = Ids.newRunId();
        send(runId, List.of(start(0, 1, runId), delta(1, 1, runId), delta(2, 1, runId), delta(3, 1, runId)));
        appliedUpTo(runId, 1);

        assertThat(backlog.from(runId, 0)).extracting(Frame::seq).containsExactly(0L, 1L);
    }

    @Test
    void aZombiesEventsAreNotServedButTheNextAttemptsAre() throws Exception {
        String runId = Ids.newRunId();
        send(runId, List.of(start(0, 1, runId), delta(1, 1, runId), delta(2, 1, runId), // 2@1: written after the takeover
                start(2, 2, runId), delta(3, 1, runId), delta(3, 2, runId)));
        appliedUpTo(runId, 3);

        assertThat(backlog.from(runId, 0)).extracting(f -> f.seq() + "@" + CODEC.peekHeader(f.json()).epoch())
                .containsExactly("0@1", "1@1", "2@2", "3@2");
    }

    private static void appliedUpTo(String runId, long lastSeq) {
        redis.sync().hset(RedisKeys.run(runId), Map.of("status", "running", "project_id", "p", "agent_id", "a",
                "last_seq", Long.toString(lastSeq), "first_offset", "0", "created_at", Instant.now().toString()));
    }

    private static RunEvent start(long seq, int epoch, String runId) {
        return new RunEvent(seq, epoch, runId, null, "p", "a", Instant.now(),
                new EventData.RunStart(null, runId, "a", epoch, RunInput.ofQuery("q"), Map.of()));
    }

    private static RunEvent delta(long seq, int epoch, String runId) {
        return new RunEvent(seq, epoch, runId, null, "p", "a", Instant.now(), new EventData.MessageDelta("msg_1", "x"));
    }

    private static void send(String runId, List<RunEvent> events) throws Exception {
        try (var producer = new KafkaProducer<>(Map.<String, Object>of("bootstrap.servers", RealInfrastructure.kafkaBootstrapServers()),
                new StringSerializer(), new ByteArraySerializer())) {
            for (RunEvent event : events) {
                producer.send(new ProducerRecord<>(EVENTS, event.partitionKey(), CODEC.encode(event))).get();
            }
        }
    }
}
