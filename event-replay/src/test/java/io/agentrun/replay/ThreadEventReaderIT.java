package io.agentrun.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.command.RunInput;
import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.event.Usage;
import io.agentrun.model.id.Ids;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.thread.ThreadDeleted;
import io.agentrun.platform.kafka.ClientDefaults;
import io.agentrun.platform.kafka.KafkaSettings;
import io.agentrun.platform.kafka.TopicReaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link ThreadEventReader} against a real broker: a thread's events read back from a topic of its own (one
 * partition, so other threads' records lie between them), in order, each seq once, fenced epochs left out, a time
 * window and a run honoured, a deleted thread shown as deleted. No Redis: positions by time or from the start.
 */
@ExtendWith(RealInfrastructure.class)
class ThreadEventReaderIT {

    private static final JsonCodec CODEC = new JsonCodec();
    private static final Instant T0 = Instant.parse("2026-11-26T10:00:00Z");

    private String topic;
    private ThreadEventReader reader;

    @BeforeEach
    void newTopic() throws Exception {
        topic = "events-replay-" + Ids.newThreadId();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", RealInfrastructure.kafkaBootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        KafkaSettings settings = new KafkaSettings("commands-unused", topic, 1, 1, (short) -1, Duration.ofDays(7), "workers", "relays",
                Duration.ofSeconds(5));
        KafkaProperties clients = new KafkaProperties();
        clients.setBootstrapServers(List.of(RealInfrastructure.kafkaBootstrapServers()));
        reader = new ThreadEventReader(new TopicReaders(ClientDefaults.consumerFactory(clients), settings), null, CODEC);
    }

    @Test
    void aThreadsEventsComeBackInOrderEachSeqOnceAndAFencedEpochLeftOut() {
        String thread = Ids.newThreadId();
        String other = Ids.newThreadId();
        String run = Ids.newRunId();
        produce(start(thread, run, 0, 1, 0), start(other, Ids.newRunId(), 0, 1, 0), delta(thread, run, 1, 1, 1, "a"),
                delta(thread, run, 1, 1, 1, "a"), // a producer retry wrote it twice
                start(thread, run, 2, 2, 2), // a second attempt (epoch 2) takes over at seq 2
                delta(thread, run, 2, 1, 2, "zombie"), // the first attempt, fenced
                delta(thread, run, 3, 2, 3, "b"), end(thread, run, 4, 2, 4));

        List<ReplayedEvent> events = replay(new ReplayQuery(thread, null, null, null, false));

        assertThat(events).extracting(e -> e.event().seq() + "@" + e.event().epoch()).containsExactly("0@1", "1@1", "2@2", "3@2", "4@2");
        assertThat(events).allMatch(e -> thread.equals(e.event().threadId()));
        assertThat(events).isSortedAccordingTo(java.util.Comparator.comparingLong(ReplayedEvent::offset));
    }

    @Test
    void aRunAndATimeWindowSelectTheirEvents() {
        String thread = Ids.newThreadId();
        String first = Ids.newRunId();
        String second = Ids.newRunId();
        produce(start(thread, first, 0, 1, 0), end(thread, first, 1, 1, 1), start(thread, second, 0, 1, 60), end(thread, second, 1, 1, 61));

        assertThat(replay(new ReplayQuery(thread, second, null, null, false))).extracting(e -> e.event().runId()).containsOnly(second).hasSize(2);
        assertThat(replay(new ReplayQuery(thread, null, T0, T0.plusSeconds(30), false))).extracting(e -> e.event().runId())
                .containsOnly(first).hasSize(2);
    }

    @Test
    void aReadAfterAnOffsetStartsPastItsRecord() {
        String thread = Ids.newThreadId();
        String run = Ids.newRunId();
        produce(start(thread, run, 0, 1, 0), delta(thread, run, 1, 1, 1, "a"), end(thread, run, 2, 1, 2));
        List<ReplayedEvent> all = replay(new ReplayQuery(thread, run, null, null, false));

        List<ReplayedEvent> past = replay(new ReplayQuery(thread, run, null, null, false, all.get(1).offset()));

        assertThat(past).extracting(e -> e.event().seq()).containsExactly(2L);
        assertThat(past.getFirst().offset()).isEqualTo(all.get(2).offset());
    }

    @Test
    void aDeletedThreadShowsNothingButItsDeletion() {
        String thread = Ids.newThreadId();
        String run = Ids.newRunId();
        produce(start(thread, run, 0, 1, 0), end(thread, run, 1, 1, 1));
        ThreadDeleted deletion = new ThreadDeleted(thread, "demo", "key:fam_a", T0.plusSeconds(5), List.of(run));
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, thread, CODEC.write(deletion).getBytes(StandardCharsets.UTF_8));
        record.headers().add(ThreadDeleted.KIND_HEADER, ThreadDeleted.KIND.getBytes(StandardCharsets.UTF_8));
        send(List.of(record));

        List<ReplayedEvent> shown = new ArrayList<>();
        ThreadEventReader.Replay replay = reader.replay(new ReplayQuery(thread, null, null, null, false), shown::add, () -> true);

        assertThat(shown).isEmpty();
        assertThat(replay.events()).isZero();
        assertThat(replay.deleted()).isEqualTo(deletion);
    }

    private List<ReplayedEvent> replay(ReplayQuery query) {
        List<ReplayedEvent> shown = new ArrayList<>();
        ThreadEventReader.Replay replay = reader.replay(query, shown::add, () -> true);
        assertThat(replay.deleted()).isNull();
        assertThat(replay.events()).isEqualTo(shown.size());
        return shown;
    }

    private static RunEvent start(String thread, String run, long seq, int epoch, int second) {
        return new RunEvent(seq, epoch, run, thread, "demo", "assistant", T0.plusSeconds(second),
                new EventData.RunStart(thread, run, "assistant", epoch, new RunInput("hi", List.of(), List.of(), List.of(), List.of()), Map.of()));
    }

    private static RunEvent delta(String thread, String run, long seq, int epoch, int second, String text) {
        return new RunEvent(seq, epoch, run, thread, "demo", "assistant", T0.plusSeconds(second), new EventData.MessageDelta("msg_a", text));
    }

    private static RunEvent end(String thread, String run, long seq, int epoch, int second) {
        return new RunEvent(seq, epoch, run, thread, "demo", "assistant", T0.plusSeconds(second),
                new EventData.RunEnd(RunStatus.COMPLETED, "done", Usage.NONE, 5));
    }

    private void produce(RunEvent... events) {
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
        for (RunEvent event : events) {
            records.add(new ProducerRecord<>(topic, null, event.createdAt().toEpochMilli(), event.threadId(), CODEC.encode(event)));
        }
        send(records);
    }

    private static void send(List<ProducerRecord<String, byte[]>> records) {
        Properties config = new Properties();
        config.put("bootstrap.servers", RealInfrastructure.kafkaBootstrapServers());
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer())) {
            for (ProducerRecord<String, byte[]> record : records) {
                producer.send(record);
            }
            producer.flush();
        }
    }
}
