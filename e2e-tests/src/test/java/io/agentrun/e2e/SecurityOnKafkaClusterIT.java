package io.agentrun.e2e;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link SecurityIT} again, on a three-node Kafka cluster (replication factor 3, {@code min.insync.replicas=2},
 * producers {@code acks=all}): credentials and the cross-project checks.
 */
class SecurityOnKafkaClusterIT extends SecurityIT {

    @BeforeAll
    static void start() throws java.io.IOException {
        Pipeline.useKafkaCluster(true);
        SecurityIT.start();
    }

    @AfterAll
    static void stop() {
        try {
            SecurityIT.stop();
        } finally {
            Pipeline.useKafkaCluster(false);
        }
    }
}
