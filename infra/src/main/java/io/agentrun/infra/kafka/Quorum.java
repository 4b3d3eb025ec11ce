package io.agentrun.infra.kafka;

import io.agentrun.infra.process.Ports;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.common.Uuid;

/**
 * The KRaft voters of one cluster: every node is broker and controller, all formatted with the same cluster id.
 *
 * @param nodes ids from 1, each with its client and controller port
 */
record Quorum(String clusterId, List<Node> nodes) {

    record Node(int id, int port, int controllerPort) {
    }

    static Quorum single(int port) {
        return new Quorum(Uuid.randomUuid().toString(), List.of(new Node(1, port, Ports.reserve())));
    }

    /** @param firstPort node n's client port is {@code firstPort + n - 1}; 0 for free ports */
    static Quorum of(int size, int firstPort) {
        return new Quorum(Uuid.randomUuid().toString(), IntStream.rangeClosed(1, size)
                .mapToObj(id -> new Node(id, firstPort == 0 ? Ports.reserve() : firstPort + id - 1, Ports.reserve())).toList());
    }

    /** {@code controller.quorum.voters}: {@code 1@localhost:9093,2@localhost:9095,…}. */
    String voters() {
        return nodes.stream().map(n -> n.id() + "@localhost:" + n.controllerPort()).collect(Collectors.joining(","));
    }

    /** Three replicas when there are three nodes or more, as production runs; one when alone. */
    int replicationFactor() {
        return Math.min(3, nodes.size());
    }

    /** A write is acknowledged once two replicas have it (one may be lost); alone, once it has it. */
    int minInSyncReplicas() {
        return replicationFactor() >= 3 ? 2 : 1;
    }
}
