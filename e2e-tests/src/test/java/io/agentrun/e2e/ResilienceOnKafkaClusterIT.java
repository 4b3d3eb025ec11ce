package io.agentrun.e2e;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link ResilienceIT} again, on a three-node Kafka cluster (replication factor 3, {@code min.insync.replicas=2},
 * producers {@code acks=all}): join and resume with Last-Event-ID, cancel, slow clients, draining.
 */
class ResilienceOnKafkaClusterIT extends ResilienceIT {

    @BeforeAll
    static void start() {
        Pipeline.useKafkaCluster(true);
        ResilienceIT.start();
    }

    @AfterAll
    static void stop() {
        try {
            ResilienceIT.stop();
        } finally {
            Pipeline.useKafkaCluster(false);
        }
    }
}
