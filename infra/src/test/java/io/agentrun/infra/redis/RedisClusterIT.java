package io.agentrun.infra.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.infra.process.Deadline;
import io.agentrun.infra.testing.TempDirs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The local Redis Cluster is a real one: three primaries with a replica each cover all 16384 slots, and a primary
 * killed with SIGKILL is replaced by its replica; restarted, it comes back as a replica.
 */
class RedisClusterIT {

    @Test
    void threePrimariesWithAReplicaEachServeEverySlotAndAKilledPrimaryIsReplacedByItsReplica() throws Exception {
        Path dir = Files.createTempDirectory("agentrun-redis-cluster");
        try (RedisCluster cluster = RedisCluster.start(dir, 3, 1)) {
            assertThat(cluster.nodes()).hasSize(6);
            RedisServer first = cluster.nodes().getFirst();
            assertThat(cluster.roles(first, "master")).isEqualTo(3);
            assertThat(cluster.roles(first, "slave")).isEqualTo(3);
            assertThat(cluster.url().split(",")).hasSize(6).allMatch(url -> url.startsWith("redis://127.0.0.1:"));

            RedisServer primary = cluster.nodes().stream().filter(n -> cluster.topology(n).lines()
                    .anyMatch(l -> l.contains("myself") && l.contains("master"))).findFirst().orElseThrow();
            RedisServer witness = cluster.nodes().stream().filter(n -> n != primary).findFirst().orElseThrow();
            String killedId = cluster.topology(primary).lines().filter(l -> l.contains("myself")).findFirst().orElseThrow().split(" ")[0];
            primary.kill();

            Deadline.await("a replica to take over the lost primary's slots", Duration.ofSeconds(30), Duration.ofMillis(200),
                    () -> { }, () -> "ok".equals(cluster.state(witness)) && cluster.roles(witness, "master") == 3
                            && cluster.topology(witness).lines().map(l -> l.split(" "))
                                    .anyMatch(f -> f[0].equals(killedId) && List.of(f[2].split(",")).contains("fail")));
            primary.restart();
            try {
                Deadline.await("the old primary to rejoin as a replica", Duration.ofSeconds(30), Duration.ofMillis(200),
                        () -> { }, () -> cluster.topology(primary).lines().anyMatch(l -> l.contains("myself") && l.contains("slave")));
            } catch (IllegalStateException e) {
                throw new AssertionError("topology seen by the restarted node:\n" + cluster.topology(primary)
                        + "\nby another:\n" + cluster.topology(witness), e);
            }
        } finally {
            TempDirs.deleteQuietly(dir);
        }
    }
    /**
     * What a failover after a reshard left on redis-server 7.0 (RedisClusterFaultIT, CI): a primary that does not
     * know it serves one of its slots, while every other node routes that slot to it. It answers CLUSTERDOWN for
     * every key; the cluster is not whole until the slot's owner is told, as an operator would tell it.
     */
    @Test
    void aPrimaryThatForgotOneOfItsSlotsIsNotWholeUntilTheSlotOwnersAreReconciled() throws Exception {
        Path dir = Files.createTempDirectory("agentrun-redis-cluster");
        try (RedisCluster cluster = RedisCluster.start(dir, 3, 1)) {
            assertThat(cluster.isWhole()).isTrue();
            assertThat(cluster.reconcileSlotOwners()).as("nothing to reconcile in a formed cluster").isEmpty();
            RedisServer primary = cluster.primaryOf(7260);

            assertThat(RedisCluster.cli(primary.port(), "cluster", "delslots", "7260").strip()).isEqualTo("OK");
            Deadline.await("the primary to see the cluster down", Duration.ofSeconds(30), Duration.ofMillis(100), () -> { },
                    () -> "fail".equals(cluster.state(primary)));
            assertThat(cluster.isWhole()).isFalse();

            assertThat(cluster.reconcileSlotOwners()).singleElement().asString().contains("slot 7260");
            Deadline.await("the cluster to be whole again", Duration.ofSeconds(30), Duration.ofMillis(100), () -> { }, cluster::isWhole);
            assertThat(cluster.primaryOf(7260)).isSameAs(primary);
        } finally {
            TempDirs.deleteQuietly(dir);
        }
    }
}
