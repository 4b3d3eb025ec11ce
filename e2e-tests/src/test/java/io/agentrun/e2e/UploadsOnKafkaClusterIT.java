package io.agentrun.e2e;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link UploadsIT} again, on a three-node Kafka cluster (replication factor 3, {@code min.insync.replicas=2},
 * producers {@code acks=all}): uploads and the run path that reads them.
 */
class UploadsOnKafkaClusterIT extends UploadsIT {

    @BeforeAll
    static void start() throws java.io.IOException {
        Pipeline.useKafkaCluster(true);
        UploadsIT.start();
    }

    @AfterAll
    static void stop() {
        try {
            UploadsIT.stop();
        } finally {
            Pipeline.useKafkaCluster(false);
        }
    }
}
