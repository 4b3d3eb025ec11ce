package io.agentrun.e2e;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link PipelineIT} again, on a three-node Kafka cluster (replication factor 3, {@code min.insync.replicas=2},
 * producers {@code acks=all}): streaming, threads, one-off runs.
 */
class PipelineOnKafkaClusterIT extends PipelineIT {

    @BeforeAll
    static void start() {
        Pipeline.useKafkaCluster(true);
        PipelineIT.start();
    }

    @AfterAll
    static void stop() {
        try {
            PipelineIT.stop();
        } finally {
            Pipeline.useKafkaCluster(false);
        }
    }
}
