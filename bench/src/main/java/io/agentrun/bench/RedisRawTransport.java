package io.agentrun.bench;

import io.agentrun.model.id.Ids;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;

/**
 * The {@code redis-raw} baseline, the limit of the fan-out hop: the same envelopes published to a
 * shard channel per run ({@code SPUBLISH}, as the relay does) on the same redis-server and received by one
 * subscriber connection, as an api node receives them.
 */
final class RedisRawTransport implements Transport {

    private final Script script;
    private final long delayMs;
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> publisher;
    private final StatefulRedisPubSubConnection<String, String> subscriber;
    private final Map<String, RunWatch> watches = new ConcurrentHashMap<>();

    RedisRawTransport(String redisUrl, Script script, long delayMs) {
        this.script = script;
        this.delayMs = delayMs;
        this.client = RedisClient.create(redisUrl);
        this.publisher = client.connect();
        this.subscriber = client.connectPubSub();
        subscriber.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void smessage(String channel, String message) {
                RunWatch watch = watches.get(channel);
                if (watch != null) {
                    watch.onEvent(SseEvent.parse(message));
                }
            }
        });
    }

    @Override
    public String name() {
        return "redis-raw";
    }

    @Override
    public void run(int slot, RunWatch watch) throws Exception {
        String runId = Ids.newRunId();
        String channel = "bench:live:" + runId;
        watches.put(channel, watch);
        try {
            subscriber.sync().ssubscribe(channel);
            script.play("redis-raw", runId, runId, delayMs, envelope -> publisher.async().spublish(channel, envelope));
            if (!watch.awaitEnd(60_000)) {
                throw new TimeoutException("no run_end within 60 s");
            }
        } finally {
            watches.remove(channel);
            subscriber.async().unsubscribe(channel);
        }
    }

    @Override
    public void close() {
        subscriber.close();
        publisher.close();
        client.shutdown();
    }
}
