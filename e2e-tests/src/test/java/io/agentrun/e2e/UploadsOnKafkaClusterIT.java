package io.agentrun.e2e;

import org.junit.jupiter.api.extension.ExtendWith;

/** {@link UploadsIT} again, on the three-node Kafka cluster: uploads and the run path that reads them. */
@ExtendWith(OnKafkaCluster.class)
class UploadsOnKafkaClusterIT extends UploadsIT {
}
