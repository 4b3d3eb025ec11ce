package io.agentrun.bench;

import io.agentrun.model.id.Ids;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The {@code share-raw} baseline, the limit of the command hop: a command produced to a share group and
 * taken by one plain {@link KafkaShareConsumer} in explicit mode that ACCEPTs it on pick-up — the pattern of
 * the worker's dispatcher, without the worker and its claim in Redis. Its time to first event is the command's
 * pick-up time; the run plays no events in between. {@code -Dbench.share-hold=true} holds each command with
 * RENEW while its run lasts instead (the first design, kept to show the difference).
 */
final class ShareRawTransport implements Transport {

    private static final int PARTITIONS = 12;
    /** -Dbench.share-hold=true: hold the command with RENEW for the run's length (the first design) instead of ACCEPT on pick-up. */
    /** -Dbench.share-pause-ms=N: pause between polls. */
    private static final long PAUSE_MS = Long.getLong("bench.share-pause-ms", 0);
    /** -Dbench.share-end-first=true: the client sees run_end when the run ends, before the command is accepted (as in the pipeline). */
    private static final boolean END_BEFORE_ACCEPT = Boolean.getBoolean("bench.share-end-first");
    private static final boolean HOLD = Boolean.getBoolean("bench.share-hold");

    private final long runMillis;
    private final String topic = "bench.raw-commands." + Ids.newRunId().substring(4);
    private final KafkaProducer<String, String> producer;
    private final KafkaShareConsumer<String, String> consumer;
    private final Map<String, RunWatch> watches = new ConcurrentHashMap<>();
    /** Loop thread only: commands held, by run id, with the time their run ends. */
    private final Map<String, Long> holding = new HashMap<>();
    private final Thread poller;
    private volatile boolean running = true;

    ShareRawTransport(String bootstrap, long runMillis, Map<String, Object> consumerOverrides) throws Exception {
        this.runMillis = runMillis;
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get();
        }
        producer = new KafkaProducer<>(Map.of("bootstrap.servers", bootstrap, ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true, ProducerConfig.LINGER_MS_CONFIG, 1),
                new StringSerializer(), new StringSerializer());
        Map<String, Object> config = new HashMap<>(Map.of("bootstrap.servers", bootstrap, ConsumerConfig.GROUP_ID_CONFIG, topic,
                "share.acknowledgement.mode", "explicit"));
        config.putAll(consumerOverrides);
        consumer = new KafkaShareConsumer<>(config, new StringDeserializer(), new StringDeserializer());
        consumer.subscribe(List.of(topic));
        poller = Thread.ofPlatform().daemon().name("share-raw-poll").start(this::poll);
    }

    @Override
    public String name() {
        return "share-raw";
    }

    @Override
    public void run(int slot, RunWatch watch) throws Exception {
        String runId = Ids.newRunId();
        watches.put(runId, watch);
        try {
            producer.send(new ProducerRecord<>(topic, runId, Long.toString(System.currentTimeMillis())));
            if (!watch.awaitEnd(60_000)) {
                throw new TimeoutException("command not taken and finished within 60 s");
            }
        } finally {
            watches.remove(runId);
        }
    }

    private void poll() {
        try {
            while (running) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    consumer.acknowledge(record, decide(record));
                }
                consumer.commitAsync();
                if (PAUSE_MS > 0) {
                    Thread.sleep(PAUSE_MS); // the experiment: a paced loop instead of one that polls again at once
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (WakeupException e) {
            // closing
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    private AcknowledgeType decide(ConsumerRecord<String, String> record) {
        long now = System.currentTimeMillis();
        Long endsAt = holding.get(record.key());
        RunWatch watch = watches.get(record.key());
        if (endsAt == null) {
            if (watch != null) {
                watch.onEvent(new SseEvent(0, "run_start", Long.parseLong(record.value())));
            }
            if (!HOLD) {
                // accept at once and end the run on a timer: the pick-up time of a consumer that holds nothing
                Thread.ofVirtual().start(() -> endLater(watch));
                return AcknowledgeType.ACCEPT;
            }
            holding.put(record.key(), now + runMillis);
            if (END_BEFORE_ACCEPT) {
                Thread.ofVirtual().start(() -> endLater(watch));
            }
            return AcknowledgeType.RENEW;
        }
        if (now < endsAt) {
            return AcknowledgeType.RENEW;
        }
        holding.remove(record.key());
        if (watch != null && !END_BEFORE_ACCEPT) {
            watch.onEvent(new SseEvent(1, "run_end", now));
        }
        return AcknowledgeType.ACCEPT;
    }

    private void endLater(RunWatch watch) {
        try {
            Thread.sleep(runMillis); // the run's length, as the scripted model would take
            watch.onEvent(new SseEvent(1, "run_end", System.currentTimeMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        consumer.wakeup();
        poller.join(10_000);
        producer.close();
    }
}
