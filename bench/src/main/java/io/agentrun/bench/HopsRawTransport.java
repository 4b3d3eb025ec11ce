package io.agentrun.bench;

import com.sun.net.httpserver.HttpExchange;
import io.agentrun.model.id.Ids;
import io.lettuce.core.RedisClient;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The {@code hops-raw} baseline: the smallest honest program doing what the pipeline does for one event, with no
 * per-run state — the practical limit of this design. The SSE client POSTs to an in-bench HTTP endpoint
 * ({@link SseEndpoint}); the endpoint plays the script on a thread of its own (the worker's part), producing each
 * envelope to Kafka keyed by run ({@link RawTopic}: the same broker and producer settings); one consumer thread
 * writes each batch to Redis, a stream entry per event and a message per run on the node's channel, pipelined
 * ({@link HopsRelay}); the node's one subscription hands each message to the stream waiting for that run
 * ({@link LiveRouter}), which writes the events as SSE and flushes. Same redis-server and broker as the pipeline.
 */
final class HopsRawTransport implements Transport {

    private static final long STREAM_TIMEOUT_SECONDS = 60;

    private final Script script;
    private final long delayMs;
    private final RedisClient redis;
    private final LiveRouter router;
    private final RawTopic topic;
    private final HopsRelay relay;
    private final SseEndpoint endpoint;
    private final SseTransport client;

    HopsRawTransport(String bootstrap, String redisUrl, Script script, long delayMs, int lingerMs, int fetchWaitMs, String body) throws Exception {
        this.script = script;
        this.delayMs = delayMs;
        String channel = "bench:hops:node:" + Ids.newRunId().substring(4);
        this.redis = RedisClient.create(redisUrl);
        this.router = new LiveRouter(redis, channel);
        this.topic = new RawTopic(bootstrap, "bench.hops-events.", lingerMs, fetchWaitMs);
        this.relay = new HopsRelay(topic, redis, channel);
        this.endpoint = new SseEndpoint(this::stream);
        this.client = new SseTransport("hops-raw", List.of(endpoint.uri()), Map.of(), body);
    }

    @Override
    public String name() {
        return "hops-raw";
    }

    @Override
    public void run(int slot, RunWatch watch) throws Exception {
        client.run(slot, watch);
    }

    /** One stream: subscribed (by the node's map) before the run starts, so no event can pass it by. */
    private void stream(HttpExchange exchange) throws IOException {
        try (exchange) {
            OutputStream out = SseEndpoint.begin(exchange);
            String runId = Ids.newRunId();
            BlockingQueue<String> live = router.open(runId);
            try {
                Thread.ofVirtual().name("hops-raw-run").start(() -> play(runId));
                forward(live, out);
            } finally {
                router.close(runId);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void play(String runId) {
        try {
            script.play("hops-raw", runId, runId, delayMs, envelope -> topic.send(runId, envelope));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Writes what arrived, then flushes once, until {@code run_end}: a message's events go out in one write. */
    private static void forward(BlockingQueue<String> live, OutputStream out) throws IOException, InterruptedException {
        boolean ended = false;
        while (!ended) {
            String message = live.poll(STREAM_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (message == null) {
                throw new IOException("hops-raw: no event within " + STREAM_TIMEOUT_SECONDS + " s");
            }
            for (; message != null; message = live.poll()) {
                for (String envelope : message.split("\n")) {
                    ended |= SseEndpoint.write(out, envelope).isRunEnd();
                }
            }
            out.flush();
        }
    }

    @Override
    public void close() throws InterruptedException {
        client.close();
        endpoint.close();
        relay.close();
        topic.close();
        router.close();
        redis.shutdown();
    }
}
