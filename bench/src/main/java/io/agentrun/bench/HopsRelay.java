package io.agentrun.bench;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.XAddArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.errors.WakeupException;

/**
 * The relay of {@code hops-raw}: one thread polling the topic; per batch, each event appended to its run's Redis
 * stream (the resume buffer) and each run's events of the batch published in one message on the node's channel,
 * the whole batch pipelined (one flush) and its replies awaited before the next poll, so nothing is read twice
 * as fast as Redis takes it. No per-run state, no decoding: the record's key is the run id.
 */
final class HopsRelay implements AutoCloseable {

    /** Long enough for a client to resume in a bench, short enough that a bench does not fill the shared Redis. */
    static final Duration BUFFER_TTL = Duration.ofSeconds(10);
    private static final XAddArgs BUFFER = XAddArgs.Builder.maxlen(1_000).approximateTrimming();
    private static final Duration REPLY_TIMEOUT = Duration.ofSeconds(10);

    private final RawTopic topic;
    private final StatefulRedisConnection<String, String> redis;
    private final String channel;
    private final Thread thread;
    private volatile boolean running = true;

    HopsRelay(RawTopic topic, RedisClient client, String channel) {
        this.topic = topic;
        this.channel = channel;
        this.redis = client.connect();
        redis.setAutoFlushCommands(false); // this thread alone writes on it, and flushes once per batch
        this.thread = Thread.ofPlatform().daemon().name("hops-raw-relay").start(this::loop);
    }

    static String bufferKey(String runId) {
        return "bench:hops:run:" + runId;
    }

    private void loop() {
        try (var consumer = topic.consumer) {
            while (running) {
                ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
                if (!records.isEmpty()) {
                    apply(records);
                }
            }
        } catch (WakeupException e) {
            // closing
        }
    }

    private void apply(ConsumerRecords<String, String> records) {
        RedisAsyncCommands<String, String> commands = redis.async();
        List<RedisFuture<?>> replies = new ArrayList<>();
        Map<String, StringBuilder> live = new LinkedHashMap<>();
        for (ConsumerRecord<String, String> record : records) {
            replies.add(commands.xadd(bufferKey(record.key()), BUFFER, "e", record.value()));
            live.computeIfAbsent(record.key(), runId -> new StringBuilder(runId)).append('\n').append(record.value());
        }
        live.forEach((runId, message) -> {
            replies.add(commands.pexpire(bufferKey(runId), BUFFER_TTL));
            replies.add(commands.publish(channel, message.toString()));
        });
        redis.flushCommands();
        if (!LettuceFutures.awaitAll(REPLY_TIMEOUT, replies.toArray(new RedisFuture<?>[0]))) {
            throw new IllegalStateException("hops-raw: Redis did not answer a batch within " + REPLY_TIMEOUT);
        }
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        topic.wakeup();
        thread.join(10_000);
        redis.close();
    }
}
