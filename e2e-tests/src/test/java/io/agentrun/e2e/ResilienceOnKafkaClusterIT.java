package io.agentrun.e2e;

import org.junit.jupiter.api.extension.ExtendWith;

/** {@link ResilienceIT} again, on the three-node Kafka cluster: join and resume with Last-Event-ID, cancel, slow clients, draining. */
@ExtendWith(OnKafkaCluster.class)
class ResilienceOnKafkaClusterIT extends ResilienceIT {
}
