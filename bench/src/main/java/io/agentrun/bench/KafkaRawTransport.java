package io.agentrun.bench;

import io.agentrun.model.id.Ids;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.errors.WakeupException;

/**
 * The {@code kafka-raw} baseline, the limit of the log hop: the same envelopes produced to the same
 * broker with the pipeline's producer settings (idempotent, {@code acks=all}, the same linger) and read
 * back by one plain consumer, keyed and partitioned like the event topic ({@link RawTopic}).
 */
final class KafkaRawTransport implements Transport {

    private final Script script;
    private final long delayMs;
    private final RawTopic topic;
    private final Map<String, RunWatch> watches = new ConcurrentHashMap<>();
    private final Thread poller;
    private volatile boolean running = true;

    KafkaRawTransport(String bootstrap, Script script, long delayMs, int lingerMs) throws Exception {
        this.script = script;
        this.delayMs = delayMs;
        this.topic = new RawTopic(bootstrap, "bench.raw-events.", lingerMs, 0);
        poller = Thread.ofPlatform().daemon().name("kafka-raw-poll").start(this::poll);
    }

    @Override
    public String name() {
        return "kafka-raw";
    }

    @Override
    public void run(int slot, RunWatch watch) throws Exception {
        String runId = Ids.newRunId();
        watches.put(runId, watch);
        try {
            script.play("kafka-raw", runId, runId, delayMs, envelope -> topic.send(runId, envelope));
            if (!watch.awaitEnd(60_000)) {
                throw new TimeoutException("no run_end within 60 s");
            }
        } finally {
            watches.remove(runId);
        }
    }

    private void poll() {
        try (var consumer = topic.consumer) {
            while (running) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    RunWatch watch = watches.get(record.key());
                    if (watch != null) {
                        watch.onEvent(SseEvent.parse(record.value()));
                    }
                }
            }
        } catch (WakeupException e) {
            // closing
        }
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        topic.wakeup();
        poller.join(10_000);
        topic.close();
    }
}
