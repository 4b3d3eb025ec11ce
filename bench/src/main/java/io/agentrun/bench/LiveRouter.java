package io.agentrun.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The fan-out end of {@code hops-raw}, as an api node would have it: one Redis subscription for the whole node,
 * on the node's channel, handing each message to the stream that waits for its run (a map by run id). A message
 * is the run id, then its events, one envelope a line ({@link HopsRelay} writes them so).
 */
final class LiveRouter implements AutoCloseable {

    private final StatefulRedisPubSubConnection<String, String> subscriber;
    private final Map<String, BlockingQueue<String>> streams = new ConcurrentHashMap<>();

    LiveRouter(RedisClient redis, String channel) {
        subscriber = redis.connectPubSub();
        subscriber.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String from, String message) {
                dispatch(message);
            }
        });
        subscriber.sync().subscribe(channel);
    }

    /** The run's stream waits on the returned queue: each element is one message's envelopes, one a line. */
    BlockingQueue<String> open(String runId) {
        BlockingQueue<String> stream = new LinkedBlockingQueue<>();
        streams.put(runId, stream);
        return stream;
    }

    void close(String runId) {
        streams.remove(runId);
    }

    /** A run no stream of this node waits for is dropped, as a node drops what its clients left. */
    void dispatch(String message) {
        int end = message.indexOf('\n');
        BlockingQueue<String> stream = end < 0 ? null : streams.get(message.substring(0, end));
        if (stream != null) {
            stream.add(message.substring(end + 1));
        }
    }

    @Override
    public void close() {
        subscriber.close();
    }
}
