package io.agentrun.api.live;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a run's resume buffer ({@code ar:run:{id}:events}, entry id {@code {seq}-1}): the events a
 * stream missed on the live channel, or a late joiner's backlog.
 */
final class ResumeBuffer {

    private final RedisConnections redis;
    private final JsonCodec codec;

    ResumeBuffer(RedisConnections redis, JsonCodec codec) {
        this.redis = redis;
        this.codec = codec;
    }

    /** At most {@code limit} buffered events with {@code seq >= fromSeq}, in order. */
    public List<Frame> from(String runId, long fromSeq, int limit) {
        List<StreamMessage<String, String>> entries = redis.sync().xrange(RedisKeys.runEvents(runId),
                Range.create(fromSeq + "-0", "+"), io.lettuce.core.Limit.from(limit));
        List<Frame> frames = new ArrayList<>(entries.size());
        for (StreamMessage<String, String> entry : entries) {
            String json = entry.getBody().get("e");
            var header = codec.peekHeader(json);
            frames.add(new Frame(header.seq(), header.type(), json));
        }
        return frames;
    }
}
