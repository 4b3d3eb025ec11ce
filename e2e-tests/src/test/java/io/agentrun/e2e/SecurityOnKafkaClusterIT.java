package io.agentrun.e2e;

import org.junit.jupiter.api.extension.ExtendWith;

/** {@link SecurityIT} again, on the three-node Kafka cluster: credentials and the cross-project checks. */
@ExtendWith(OnKafkaCluster.class)
class SecurityOnKafkaClusterIT extends SecurityIT {
}
