package io.agentrun.e2e;

import org.junit.jupiter.api.extension.ExtendWith;

/** {@link PipelineIT} again, on the three-node Kafka cluster: streaming, threads, one-off runs. */
@ExtendWith(OnKafkaCluster.class)
class PipelineOnKafkaClusterIT extends PipelineIT {
}
