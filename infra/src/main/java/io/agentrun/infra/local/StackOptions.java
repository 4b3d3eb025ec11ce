package io.agentrun.infra.local;

import java.nio.file.Path;

/**
 * Options of {@code ./agentrun local}, as {@link StackCommand} reads them.
 *
 * @param home      the project checkout (service jars under {@code <module>/target/}, {@code agents.yml})
 * @param stateDir  pids, logs and data ({@code <home>/.agentrun} by default)
 * @param apis      api nodes, on ports {@code apiPort}, {@code apiPort + 1}, …
 * @param kafkaBrokers KRaft nodes; with three or more, topics have three replicas and min.insync.replicas=2.
 *                  Node n listens on {@code kafkaPort + n - 1}.
 * @param redisCluster a Redis Cluster of three primaries with a replica each instead of one redis-server
 */
record StackOptions(Path home, Path stateDir, int apis, int workers, int relays, int kafkaBrokers, int kafkaPort, int apiPort,
        String projectId, boolean redisCluster) {
}
