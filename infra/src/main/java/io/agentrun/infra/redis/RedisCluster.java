package io.agentrun.infra.redis;

import io.agentrun.infra.process.ChildProcess;
import io.agentrun.infra.process.Deadline;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A real Redis Cluster of {@code redis-server} processes on loopback (no Docker): primaries and their replicas,
 * formed with {@code redis-cli --cluster create} as an operator would, each node durable (append-only file). A
 * killed primary is replaced by its replica after {@code cluster-node-timeout} (2 s here); restarted, it rejoins
 * as a replica from its {@code nodes.conf}.
 */
public final class RedisCluster implements AutoCloseable {

    private static final Duration FORM_TIMEOUT = Duration.ofSeconds(60);
    private static final String NODE_TIMEOUT_MS = "2000";
    private static final int SLOTS = 16384;

    private final List<RedisServer> nodes;
    private final int primaries;

    private RedisCluster(List<RedisServer> nodes, int primaries) {
        this.nodes = List.copyOf(nodes);
        this.primaries = primaries;
    }

    /** Starts {@code primaries} × (1 + {@code replicasEach}) nodes in {@code dir/node-<n>} and forms the cluster. */
    public static RedisCluster start(Path dir, int primaries, int replicasEach) {
        if (primaries < 3) {
            throw new IllegalArgumentException("Redis Cluster needs at least 3 primaries, not " + primaries);
        }
        List<RedisServer> nodes = new ArrayList<>();
        try {
            for (int i = 1; i <= primaries * (1 + replicasEach); i++) {
                nodes.add(RedisServer.start(dir.resolve("node-" + i), true, true, List.of("--cluster-enabled", "yes",
                        "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", NODE_TIMEOUT_MS,
                        // replicas sync at once (the default waits 5 s for more replicas to share one transfer)
                        "--repl-diskless-sync-delay", "0")));
            }
            RedisCluster cluster = new RedisCluster(nodes, primaries);
            cluster.create(dir, replicasEach);
            return cluster;
        } catch (RuntimeException e) {
            nodes.forEach(RedisServer::close);
            throw e;
        }
    }

    /** Every node, comma-separated {@code redis://} URIs: what {@code REDIS_URL} takes for a cluster. */
    public String url() {
        return nodes.stream().map(RedisServer::url).collect(Collectors.joining(","));
    }

    public List<RedisServer> nodes() {
        return nodes;
    }

    /** {@code CLUSTER INFO}'s {@code cluster_state} as node {@code node} sees it: {@code ok} once every slot is served. */
    public String state(RedisServer node) {
        for (String line : cli(node.port(), "cluster", "info").split("\r?\n")) {
            if (line.startsWith("cluster_state:")) {
                return line.substring("cluster_state:".length()).strip();
            }
        }
        return "unknown";
    }

    /**
     * A counter of node {@code node}: a {@code CLUSTER INFO} field such as {@code cluster_stats_messages_publish_received}
     * (0 while the node has not counted any), or, for {@code cmdstat_<command>}, how often the command ran there
     * (scripts' calls included).
     */
    public long counter(RedisServer node, String name) {
        boolean command = name.startsWith("cmdstat_");
        String text = command ? cli(node.port(), "info", "commandstats") : cli(node.port(), "cluster", "info");
        for (String line : text.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                String value = line.substring(name.length() + 1);
                return Long.parseLong(command ? value.substring("calls=".length(), value.indexOf(',')) : value.strip());
            }
        }
        return 0;
    }

    /** The primary serving hash slot {@code slot} now, as the first live node sees it. */
    public RedisServer primaryOf(int slot) {
        RedisServer primary = primariesBySlot().get(slot);
        if (primary == null) {
            throw new IllegalStateException("no live primary serves slot " + slot);
        }
        return primary;
    }

    /**
     * The primary serving each of the 16384 hash slots now (null for a slot none serves), as the first live node sees
     * it: one {@code CLUSTER NODES} for all slots, where asking {@link #primaryOf} slot by slot runs {@code redis-cli}
     * each time.
     */
    public List<RedisServer> primariesBySlot() {
        RedisServer[] owners = new RedisServer[SLOTS];
        RedisServer witness = nodes.stream().filter(RedisServer::isAlive).findFirst().orElseThrow();
        for (String line : topology(witness).lines().toList()) {
            String[] fields = line.split(" ");
            if (fields.length < 9 || !List.of(fields[2].split(",")).contains("master") || fields[2].contains("fail")) {
                continue;
            }
            RedisServer primary = byAddress(fields[1]);
            for (int i = 8; i < fields.length; i++) {
                String[] range = fields[i].split("-");
                if (range[0].startsWith("[")) {
                    continue; // a slot being migrated or imported
                }
                int first = Integer.parseInt(range[0]);
                int last = range.length > 1 ? Integer.parseInt(range[1]) : first;
                for (int slot = first; slot <= last; slot++) {
                    owners[slot] = owners[slot] == null ? primary : owners[slot]; // a stale view may show two claims: the first stands
                }
            }
        }
        return java.util.Arrays.asList(owners);
    }

    /** The replica of {@code primary}, as the first live node sees it. */
    public RedisServer replicaOf(RedisServer primary) {
        String primaryId = nodeId(primary);
        RedisServer witness = nodes.stream().filter(RedisServer::isAlive).findFirst().orElseThrow();
        for (String line : topology(witness).lines().toList()) {
            String[] fields = line.split(" ");
            if (fields.length > 3 && fields[3].equals(primaryId) && !fields[2].contains("fail")) {
                return byAddress(fields[1]);
            }
        }
        throw new IllegalStateException("no live replica of node " + primary.port());
    }

    /** A field of {@code INFO section} on node {@code node}, e.g. {@code replication}'s {@code master_repl_offset}. */
    public String info(RedisServer node, String section, String field) {
        for (String line : cli(node.port(), "info", section).split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).strip();
            }
        }
        throw new IllegalStateException("node " + node.port() + " has no " + field + " in INFO " + section);
    }

    /** How many clients of {@code node} are subscribed to the shard channel {@code channel} ({@code PUBSUB SHARDNUMSUB}). */
    public long shardSubscribers(RedisServer node, String channel) {
        String[] lines = cli(node.port(), "pubsub", "shardnumsub", channel).strip().split("\r?\n");
        return Long.parseLong(lines[lines.length - 1].strip());
    }

    /** The node's cluster id ({@code CLUSTER MYID}). */
    public String nodeId(RedisServer node) {
        return cli(node.port(), "cluster", "myid").strip();
    }

    /**
     * Moves {@code slots} hash slots from one primary to another with their keys, as an operator reshards:
     * {@code redis-cli --cluster reshard} ({@code MIGRATE} key by key, clients redirected with ASK meanwhile).
     */
    public void moveSlots(RedisServer from, RedisServer to, int slots, Path log) {
        List<String> command = List.of(redisCli(), "--cluster", "reshard", "127.0.0.1:" + from.port(), "--cluster-from", nodeId(from),
                "--cluster-to", nodeId(to), "--cluster-slots", Integer.toString(slots), "--cluster-yes", "--cluster-pipeline", "100");
        try (ChildProcess reshard = ChildProcess.start("redis-cluster-reshard", command, Map.of(), log)) {
            Deadline.await("redis-cli --cluster reshard", FORM_TIMEOUT.multipliedBy(5), Duration.ofMillis(100), () -> { },
                    () -> !reshard.isAlive());
        } catch (IOException e) {
            throw new UncheckedIOException("could not run redis-cli", e);
        }
        if (readLog(log).contains("[ERR]")) {
            throw new IllegalStateException("resharding failed; see " + log);
        }
    }

    private RedisServer byAddress(String address) {
        int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1, address.contains("@") ? address.indexOf('@') : address.length()));
        return nodes.stream().filter(node -> node.port() == port).findFirst().orElseThrow();
    }

    /** {@code CLUSTER NODES} as node {@code node} sees it. */
    public String topology(RedisServer node) {
        return cli(node.port(), "cluster", "nodes");
    }

    /** How many nodes {@code node} sees with this role flag ({@code master} or {@code slave}), failed ones excluded. */
    public long roles(RedisServer node, String role) {
        return topology(node).lines().map(line -> line.split(" ")).filter(fields -> fields.length > 2)
                .map(fields -> List.of(fields[2].split(","))).filter(flags -> flags.contains(role) && !flags.contains("fail"))
                .count();
    }

    /**
     * Whether the cluster is as formed: every node alive and seeing every slot served, as many primaries and
     * replicas as at the start, every replica's link to its primary up. A failover or resharding leaves it so
     * once it has settled; a suite that disturbs it waits for this before the next one runs.
     */
    public boolean isWhole() {
        try {
            return nodes.stream().allMatch(n -> n.isAlive() && "ok".equals(state(n))
                    && roles(n, "master") == primaries && roles(n, "slave") == nodes.size() - primaries
                    && ("master".equals(info(n, "replication", "role")) || "up".equals(info(n, "replication", "master_link_status"))))
                    && nodes.stream().map(this::slotOwners).distinct().count() == 1;
        } catch (RuntimeException e) {
            return false; // a node still loading its data, or not answering yet
        }
    }

    /**
     * Makes every node agree with the others on who serves each slot, as an operator would with {@code CLUSTER
     * SETSLOT … NODE} and {@code CLUSTER ADDSLOTS}: seen with redis-server 7.0, a replica promoted after its primary
     * had imported slots (resharding) may not know of the last slot imported. The other nodes route that slot to it,
     * and it answers CLUSTERDOWN for every key until it is told.
     *
     * @return what was changed, one line per node and slot range; empty when every node agreed already
     */
    public List<String> reconcileSlotOwners() {
        Map<RedisServer, List<String>> views = new java.util.LinkedHashMap<>();
        nodes.stream().filter(RedisServer::isAlive).forEach(node -> views.put(node, slotOwners(node)));
        List<String> majority = views.values().stream().collect(Collectors.groupingBy(view -> view, Collectors.counting()))
                .entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
        List<String> changes = new ArrayList<>();
        for (Map.Entry<RedisServer, List<String>> entry : views.entrySet()) {
            RedisServer node = entry.getKey();
            List<String> view = entry.getValue();
            String self = nodeId(node);
            for (int slot = 0; slot < view.size(); slot++) {
                String owner = majority.get(slot);
                if (owner.isEmpty() || owner.equals(view.get(slot))) {
                    continue;
                }
                String reply = owner.equals(self) && view.get(slot).isEmpty()
                        ? cli(node.port(), "cluster", "addslots", Integer.toString(slot))
                        : cli(node.port(), "cluster", "setslot", Integer.toString(slot), "node", owner);
                changes.add("node " + node.port() + ": slot " + slot + " → " + owner + " (" + reply.strip() + ")");
            }
        }
        return changes;
    }

    /**
     * Waits for the cluster to be {@linkplain #isWhole whole}: up to {@code settled}; then, if it is not, reconciles
     * the nodes' views of slot owners and waits up to {@code healed} more.
     *
     * @return what {@link #reconcileSlotOwners} changed; empty when the cluster settled by itself
     * @throws IllegalStateException with {@link #describe()} when it is still not whole
     */
    public List<String> awaitWhole(Duration settled, Duration healed) {
        try {
            Deadline.await("the Redis Cluster to be whole", settled, Duration.ofMillis(200), () -> { }, this::isWhole);
            return List.of();
        } catch (IllegalStateException notYet) {
            List<String> changes = reconcileSlotOwners();
            try {
                Deadline.await("the Redis Cluster to be whole after reconciling " + changes, healed, Duration.ofMillis(200),
                        () -> { }, this::isWhole);
                return changes;
            } catch (IllegalStateException e) {
                throw new IllegalStateException(e.getMessage() + "\n" + describe(), e);
            }
        }
    }

    /** Who serves each of the 16384 slots as {@code node} sees it: a node id, or blank for none. */
    private List<String> slotOwners(RedisServer node) {
        String[] owners = new String[16384];
        java.util.Arrays.fill(owners, "");
        for (String line : topology(node).lines().toList()) {
            String[] fields = line.split(" ");
            for (int i = 8; i < fields.length; i++) {
                if (fields[i].startsWith("[")) {
                    continue; // a slot being migrated or imported
                }
                String[] range = fields[i].split("-");
                int first = Integer.parseInt(range[0]);
                int last = range.length > 1 ? Integer.parseInt(range[1]) : first;
                java.util.Arrays.fill(owners, first, last + 1, fields[0]);
            }
        }
        return List.of(owners);
    }

    /** Each node's state and the topology as the first live node sees it: what a failure message should show. */
    public String describe() {
        StringBuilder text = new StringBuilder();
        for (RedisServer node : nodes) {
            text.append("node ").append(node.port()).append(": ");
            if (!node.isAlive()) {
                text.append("dead\n");
                continue;
            }
            String replication = cli(node.port(), "info", "replication");
            text.append("cluster_state ").append(state(node)).append(", ")
                    .append(replication.lines().filter(l -> l.startsWith("role:") || l.startsWith("master_link_status:")
                            || l.startsWith("master_port:") || l.startsWith("connected_slaves:")).map(String::strip)
                            .collect(Collectors.joining(", "))).append('\n');
        }
        nodes.stream().filter(RedisServer::isAlive).findFirst()
                .ifPresent(witness -> text.append("CLUSTER NODES at ").append(witness.port()).append(":\n").append(topology(witness)));
        // A node that disagrees sees another cluster: its own view says why (a slot it thinks unserved, a peer it flags).
        nodes.stream().filter(RedisServer::isAlive).filter(node -> !"ok".equals(state(node))).forEach(node -> text
                .append("CLUSTER INFO at ").append(node.port()).append(":\n").append(cli(node.port(), "cluster", "info"))
                .append("CLUSTER NODES at ").append(node.port()).append(":\n").append(topology(node)));
        return text.toString();
    }

    @Override
    public void close() {
        nodes.forEach(RedisServer::close);
    }

    private void create(Path dir, int replicasEach) {
        List<String> command = new ArrayList<>(List.of(redisCli(), "--cluster", "create"));
        nodes.forEach(node -> command.add("127.0.0.1:" + node.port()));
        command.addAll(List.of("--cluster-replicas", Integer.toString(replicasEach), "--cluster-yes"));
        Path log = dir.resolve("cluster-create.log");
        try (ChildProcess create = ChildProcess.start("redis-cluster-create", command, Map.of(), log)) {
            Deadline.await("redis-cli --cluster create", FORM_TIMEOUT, Duration.ofMillis(100), () -> { }, () -> !create.isAlive());
        } catch (IOException e) {
            throw new UncheckedIOException("could not run redis-cli (apt-get install redis-tools)", e);
        }
        Deadline.await("every node to report cluster_state:ok and see " + primaries + " primaries", FORM_TIMEOUT,
                Duration.ofMillis(200), () -> { }, () -> nodes.stream().allMatch(node -> "ok".equals(state(node))
                        && roles(node, "master") == primaries && roles(node, "slave") == nodes.size() - primaries));
        // A replica that never synced with its primary does not take over when the primary is lost.
        Deadline.await("every replica to be in sync with its primary", FORM_TIMEOUT, Duration.ofMillis(200), () -> { },
                () -> nodes.stream().filter(node -> cli(node.port(), "info", "replication").contains("role:slave"))
                        .allMatch(node -> cli(node.port(), "info", "replication").contains("master_link_status:up")));
        if (!readLog(log).contains("[OK] All 16384 slots covered")) {
            throw new IllegalStateException("redis-cli --cluster create did not cover every slot; see " + log);
        }
    }

    /** {@code redis-cli} against one node; its output, errors included. */
    static String cli(int port, String... args) {
        List<String> command = new ArrayList<>(List.of(redisCli(), "-h", "127.0.0.1", "-p", Integer.toString(port)));
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            process.waitFor();
            return output;
        } catch (IOException e) {
            throw new UncheckedIOException("could not run redis-cli", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String redisCli() {
        return System.getenv().getOrDefault("REDIS_CLI_BIN", "redis-cli");
    }

    private static String readLog(Path log) {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
