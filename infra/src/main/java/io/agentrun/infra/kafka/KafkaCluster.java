package io.agentrun.infra.kafka;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A replicated Kafka cluster of KRaft nodes in child JVMs, from the same Maven Central jars as {@link KafkaBroker}:
 * with three nodes, topics get three replicas and {@code min.insync.replicas=2} (the producers' {@code acks=all}
 * then means two copies), so one node may be killed without losing an acknowledged record.
 */
public final class KafkaCluster implements AutoCloseable {

    private final List<KafkaBroker> brokers;

    private KafkaCluster(List<KafkaBroker> brokers) {
        this.brokers = List.copyOf(brokers);
    }

    /** Starts {@code size} nodes on free ports in {@code dir/node-<id>} and waits until each serves requests. */
    public static KafkaCluster start(Path dir, int size) {
        return start(dir, size, 0, true);
    }

    /**
     * @param firstPort  node n listens for clients on {@code firstPort + n - 1}; 0 for free ports
     * @param stopOnExit false when the caller stops the nodes itself, in its own order
     */
    public static KafkaCluster start(Path dir, int size, int firstPort, boolean stopOnExit) {
        if (size < 1) {
            throw new IllegalArgumentException("a cluster needs at least one node, not " + size);
        }
        for (int port = firstPort; firstPort != 0 && port < firstPort + size; port++) {
            if (io.agentrun.infra.process.Ports.isOpen("localhost", port)) {
                throw new IllegalStateException("port " + port + " is already in use; is another Kafka running? Choose another port.");
            }
        }
        Quorum quorum = Quorum.of(size, firstPort);
        List<KafkaBroker> started = new ArrayList<>();
        try {
            // All first, then wait: a node of several answers only once a majority of voters runs.
            for (Quorum.Node node : quorum.nodes()) {
                started.add(KafkaBroker.launch(dir.resolve("node-" + node.id()), quorum, node, stopOnExit));
            }
            started.forEach(KafkaBroker::awaitReady);
            return new KafkaCluster(started);
        } catch (RuntimeException e) {
            started.forEach(KafkaBroker::close);
            throw e;
        }
    }

    /** Every node's client address, comma-separated, as clients take it. */
    public String bootstrapServers() {
        return brokers.stream().map(KafkaBroker::bootstrapServers).collect(Collectors.joining(","));
    }

    public List<KafkaBroker> brokers() {
        return brokers;
    }

    /** The node with this id (1…size), as partition metadata names leaders. */
    public KafkaBroker broker(int nodeId) {
        return brokers.stream().filter(b -> b.nodeId() == nodeId).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no Kafka node " + nodeId));
    }

    @Override
    public void close() {
        brokers.forEach(KafkaBroker::close);
    }
}
