package io.agentrun.platform.pipeline;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.model.pipeline.NodeSample;
import io.agentrun.platform.redis.RedisConnections;
import io.lettuce.core.Range;
import io.lettuce.core.RedisFuture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The nodes' snapshots in Redis: a capped list per node ({@code ar:pipeline:<service>:<id>:<instance>}, newest first,
 * expiring {@link PipelineSettings#silentAfter()} after the node's last write) and the set of nodes by when each wrote
 * last ({@code ar:pipeline:nodes}). A write is five commands sent together, one round trip, every snapshot interval per
 * node: a dozen nodes at 10 s add 6 commands a second to Redis, whatever the traffic.
 */
public final class PipelineStore {

    /** Snapshots kept per node: 15 minutes at the default interval of 10 s. */
    public static final int KEPT = 90;

    /** A node's snapshots, newest first. */
    public record NodeSamples(PipelineNode node, List<NodeSample> newestFirst) {
    }

    private final RedisConnections redis;
    private final JsonCodec codec;

    public PipelineStore(RedisConnections redis, JsonCodec codec) {
        this.redis = redis;
        this.codec = codec;
    }

    /** Adds the node's snapshot, and drops from the set the nodes silent longer than {@code silentAfter}. */
    public void write(PipelineNode node, NodeSample sample, Duration silentAfter) {
        String key = RedisKeys.pipelineSamples(node.member());
        var async = redis.async();
        List<RedisFuture<?>> replies = List.of(
                async.lpush(key, codec.write(sample)),
                async.ltrim(key, 0, KEPT - 1),
                async.pexpire(key, silentAfter.toMillis()),
                async.zadd(RedisKeys.pipelineNodes(), sample.at(), node.member()),
                async.zremrangebyscore(RedisKeys.pipelineNodes(), Range.create(0, sample.at() - silentAfter.toMillis())));
        redis.await(all(replies), redis.commandTimeout(), "the pipeline snapshot");
    }

    /** The nodes that wrote within {@code silentAfter} of {@code now} (ms), each with its snapshots: two round trips. */
    public List<NodeSamples> read(long now, Duration silentAfter) {
        List<String> members = redis.sync().zrangebyscore(RedisKeys.pipelineNodes(),
                Range.create(now - silentAfter.toMillis(), Double.POSITIVE_INFINITY));
        var async = redis.async();
        List<RedisFuture<List<String>>> lists = new ArrayList<>();
        for (String member : members) {
            lists.add(async.lrange(RedisKeys.pipelineSamples(member), 0, KEPT - 1));
        }
        redis.await(all(lists), redis.commandTimeout(), "the pipeline snapshots");
        List<NodeSamples> nodes = new ArrayList<>();
        for (int i = 0; i < members.size(); i++) {
            List<NodeSample> samples = lists.get(i).toCompletableFuture().join().stream()
                    .map(json -> codec.read(json, NodeSample.class)).toList();
            if (!samples.isEmpty()) {
                nodes.add(new NodeSamples(PipelineNode.of(members.get(i)), samples));
            }
        }
        return nodes;
    }

    private static CompletableFuture<Void> all(List<? extends RedisFuture<?>> replies) {
        return CompletableFuture.allOf(replies.stream().map(RedisFuture::toCompletableFuture).toArray(CompletableFuture[]::new));
    }
}
