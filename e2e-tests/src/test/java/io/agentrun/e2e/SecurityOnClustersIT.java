package io.agentrun.e2e;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link SecurityIT} again, on the clusters a production deployment runs: the three-node Kafka cluster (replication factor
 * 3, {@code min.insync.replicas=2}) and the Redis Cluster (three primaries with a replica each, live events over
 * sharded pub/sub): credentials and the cross-project checks.
 */
@ExtendWith({OnKafkaCluster.class, OnRedisCluster.class})
class SecurityOnClustersIT extends SecurityIT {
}
