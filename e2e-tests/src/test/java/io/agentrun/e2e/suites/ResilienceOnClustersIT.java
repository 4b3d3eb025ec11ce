package io.agentrun.e2e.suites;

import io.agentrun.e2e.fixture.OnKafkaCluster;
import io.agentrun.e2e.fixture.OnRedisCluster;
import io.agentrun.e2e.fixture.SuiteLanes;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceAccessMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * {@link ResilienceIT} again, on the clusters a production deployment runs: the three-node Kafka cluster (replication factor
 * 3, {@code min.insync.replicas=2}) and the Redis Cluster (three primaries with a replica each, live events over
 * sharded pub/sub): join and resume with Last-Event-ID, cancel, slow clients, draining.
 */
@ResourceLock(value = SuiteLanes.REDIS_CLUSTER, mode = ResourceAccessMode.READ)
@ResourceLock(value = SuiteLanes.KAFKA_CLUSTER, mode = ResourceAccessMode.READ)
@ExtendWith({OnKafkaCluster.class, OnRedisCluster.class})
@Order(SuiteLanes.LONG_CLUSTER_SUITES)
class ResilienceOnClustersIT extends ResilienceIT {
}
