package io.agentrun.state.apply;

import io.agentrun.model.live.LiveMessage;
import io.agentrun.model.naming.RedisKeys;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * What one relay batch applied, published as one live message per watching api node ({@code ar:node:{node}}),
 * instead of one message per run: an api node serving many streams gets one message per batch, and the relay sends
 * one {@code SPUBLISH} per node. Each run of the batch has a slot, filled by that run's replies (in a Redis Cluster,
 * on several threads); the message keeps the batch's run order and each run's event order.
 */
final class LiveFanOut {

    private final Slot[] slots;

    LiveFanOut(int runs) {
        slots = new Slot[runs];
    }

    /** The slot of the batch's {@code index}-th run, whose events go to {@code watchers} (node ids from the run script). */
    Slot slot(int index, List<Object> watchers) {
        Slot slot = new Slot(watchers.stream().map(String::valueOf).toList());
        slots[index] = slot;
        return slot;
    }

    /** Sends one message per node; completes when Redis has taken them all. Call once every slot is filled. */
    CompletableFuture<Void> publish(RedisClusterAsyncCommands<String, String> redis) {
        Map<String, StringBuilder> byNode = new LinkedHashMap<>();
        for (Slot slot : slots) {
            if (slot == null || slot.isEmpty()) {
                continue;
            }
            String lines = slot.lines();
            for (String node : slot.watchers) {
                StringBuilder message = byNode.computeIfAbsent(node, n -> new StringBuilder(lines.length()));
                message.append(message.isEmpty() ? "" : "\n").append(lines);
            }
        }
        CompletableFuture<?>[] sent = byNode.entrySet().stream()
                .map(e -> redis.spublish(RedisKeys.nodeChannel(e.getKey()), e.getValue().toString()).toCompletableFuture())
                .toArray(CompletableFuture[]::new);
        return CompletableFuture.allOf(sent);
    }

    /** One run's applied events, in order. */
    static final class Slot {
        private final List<String> watchers;
        private final List<String> lines = new ArrayList<>();

        private Slot(List<String> watchers) {
            this.watchers = watchers;
        }

        synchronized void add(String traceparent, String envelopeJson) {
            if (!watchers.isEmpty()) {
                lines.add(LiveMessage.of(traceparent, envelopeJson));
            }
        }

        synchronized boolean isEmpty() {
            return lines.isEmpty();
        }

        synchronized String lines() {
            return String.join("\n", lines);
        }
    }
}
