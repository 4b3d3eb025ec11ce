package io.agentrun.infra.kafka;

import io.agentrun.infra.process.ChildProcess;
import io.agentrun.infra.process.Deadline;
import io.agentrun.infra.process.JavaCommand;
import io.agentrun.infra.process.ParentWatch;
import io.agentrun.infra.process.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.utils.Utils;

/**
 * A real KRaft Kafka node (combined broker + controller) in a child JVM, started from the {@code kafka_2.13} jars
 * on Maven Central — no download, no Docker: alone, or one of the nodes of a {@link KafkaCluster}. Data lives in a
 * folder of the caller's choice; a folder formatted earlier is reused, so a {@link #restart()} keeps all topics.
 */
public final class KafkaBroker implements AutoCloseable {

    static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    private final Path dataDir;
    private final Quorum quorum;
    private final Quorum.Node node;
    private final Path properties;
    private final boolean stopOnExit;
    private ChildProcess process;

    private KafkaBroker(Path dataDir, Quorum quorum, Quorum.Node node, boolean stopOnExit) throws IOException {
        this.stopOnExit = stopOnExit;
        this.dataDir = dataDir;
        this.quorum = quorum;
        this.node = node;
        this.properties = dataDir.resolve("server.properties");
        Files.createDirectories(dataDir);
        writeProperties();
        formatIfNeeded();
        this.process = launch();
    }

    /** Starts one node of {@code quorum} without waiting: a node of several answers only once a majority runs. */
    static KafkaBroker launch(Path dataDir, Quorum quorum, Quorum.Node node, boolean stopOnExit) {
        try {
            return new KafkaBroker(dataDir, quorum, node, stopOnExit);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start Kafka node " + node.id() + " in " + dataDir, e);
        }
    }

    /**
     * Starts a broker and waits until it serves requests.
     *
     * @param port the client port, or 0 for a free one
     */
    public static KafkaBroker start(Path dataDir, int port) {
        return start(dataDir, port, true);
    }

    /** @param stopOnExit false when the caller stops the broker itself, in its own order */
    public static KafkaBroker start(Path dataDir, int port, boolean stopOnExit) {
        if (port != 0 && Ports.isOpen("localhost", port)) {
            throw new IllegalStateException("port " + port + " is already in use; is another Kafka running? Choose another port.");
        }
        try {
            Quorum quorum = Quorum.single(port == 0 ? Ports.reserve() : port);
            KafkaBroker broker = new KafkaBroker(dataDir, quorum, quorum.nodes().getFirst(), stopOnExit);
            broker.awaitReady();
            return broker;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start Kafka in " + dataDir, e);
        }
    }

    /** This node's client address; for a cluster's, ask the {@link KafkaCluster}. */
    public String bootstrapServers() {
        return "localhost:" + node.port();
    }

    /** The node id, as Kafka's metadata names it (partition leaders, replicas). */
    public int nodeId() {
        return node.id();
    }

    public long pid() {
        return process.pid();
    }

    public Path log() {
        return process.log();
    }

    /** Kills the broker without a clean shutdown (fault injection) and starts it again on the same data and ports. */
    public void restart() {
        restart(pid -> { });
    }

    /**
     * Like {@link #restart()}, telling {@code launched} the new process's pid as soon as it exists: a node replaying
     * its log on a busy machine can take a minute to serve, and a supervisor's pid file should not wait for that.
     */
    public void restart(java.util.function.LongConsumer launched) {
        process = process.killAndRelaunch(this::launch);
        launched.accept(process.pid());
        awaitReady();
    }

    /** Kills the node with SIGKILL and leaves it down (a lost broker); {@link #startAgain()} brings it back. */
    public void kill() {
        process.kill();
    }

    /** Starts a {@linkplain #kill() killed} node again on its data and ports, and waits until it serves requests. */
    public void startAgain() {
        if (process.isAlive()) {
            throw new IllegalStateException("Kafka node " + node.id() + " is running");
        }
        try {
            process = launch();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start Kafka node " + node.id() + " again", e);
        }
        awaitReady();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Completes when the current process exits (a restart starts a new one, with a new future). */
    public CompletableFuture<?> exited() {
        return process.exited();
    }

    @Override
    public void close() {
        process.close();
    }

    private void writeProperties() throws IOException {
        Properties p = new Properties();
        p.setProperty("process.roles", "broker,controller");
        p.setProperty("node.id", Integer.toString(node.id()));
        p.setProperty("controller.quorum.voters", quorum.voters());
        p.setProperty("listeners", "PLAINTEXT://localhost:" + node.port() + ",CONTROLLER://localhost:" + node.controllerPort());
        p.setProperty("advertised.listeners", "PLAINTEXT://localhost:" + node.port());
        p.setProperty("controller.listener.names", "CONTROLLER");
        p.setProperty("inter.broker.listener.name", "PLAINTEXT");
        p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.setProperty("log.dirs", dataDir.resolve("log").toString());
        p.setProperty("auto.create.topics.enable", "false");
        p.setProperty("group.initial.rebalance.delay.ms", "0");
        // Alone: internal topics with one replica and few partitions start in a second, not ten. In a cluster of
        // three or more: every topic, ours (created with the broker's default) and the internal ones, has three
        // replicas and takes a write once two have it, so one lost broker loses nothing acknowledged.
        String replicas = Integer.toString(quorum.replicationFactor());
        String minInSync = Integer.toString(quorum.minInSyncReplicas());
        for (String internal : List.of("offsets.topic", "transaction.state.log", "share.coordinator.state.topic")) {
            p.setProperty(internal + ".replication.factor", replicas);
        }
        p.setProperty("default.replication.factor", replicas);
        if (quorum.nodes().size() > 1) {
            // A node killed with SIGKILL loses its partitions' leadership once the controller misses its heartbeats:
            // after 4 s here instead of Kafka's 9 s, so that local failover and the fault tests are quick.
            p.setProperty("broker.session.timeout.ms", "4000");
            p.setProperty("broker.heartbeat.interval.ms", "1000");
        }
        p.setProperty("min.insync.replicas", minInSync);
        p.setProperty("transaction.state.log.min.isr", minInSync);
        p.setProperty("share.coordinator.state.topic.min.isr", minInSync);
        p.setProperty("offsets.topic.num.partitions", "4");
        p.setProperty("transaction.state.log.num.partitions", "4");
        p.setProperty("share.coordinator.state.topic.num.partitions", "4");
        // A member killed with SIGKILL is noticed after its session times out; 10 s instead of 45 s makes
        // local failover (and the fault-injection tests) quick. The acquisition lock stays at its minimum, 15 s.
        for (String group : List.of("group.share", "group.consumer")) {
            p.setProperty(group + ".min.session.timeout.ms", "6000");
            p.setProperty(group + ".session.timeout.ms", "10000");
            p.setProperty(group + ".min.heartbeat.interval.ms", "1000");
            p.setProperty(group + ".heartbeat.interval.ms", "2000");
        }
        // The share group assigns each partition to one worker while there are more partitions than workers, so
        // a dead worker's partitions — with the commands a sweeper produced again for its runs, and those of runs
        // decided by people meanwhile — wait for its session to time out, and then for the live worker's next
        // heartbeat to learn they are its own. (What the dead worker had acquired is released when its connection
        // closes.) 3 s and 1 s: a decided run resumes within ~4 s of a worker's SIGKILL (ApprovalFaultIT), where 6 s
        // and 2 s held some for 7 s, and 10 s and 2 s for 11 s (FaultInjectionIT).
        p.setProperty("group.share.min.session.timeout.ms", "3000");
        p.setProperty("group.share.session.timeout.ms", "3000");
        p.setProperty("group.share.heartbeat.interval.ms", "1000");
        p.setProperty("group.share.record.lock.duration.ms", "15000");
        try (var out = Files.newBufferedWriter(properties)) {
            p.store(out, "agentrun KRaft node " + node.id() + " of " + quorum.nodes().size());
        }
    }

    private void formatIfNeeded() throws IOException {
        if (Files.exists(dataDir.resolve("log").resolve("meta.properties"))) {
            return;
        }
        // C1 only: a tool that runs for seconds gains nothing from C2 but its compile threads' CPU.
        List<String> command = JavaCommand.java(List.of("-Xmx256m", "-XX:TieredStopAtLevel=1"), JavaCommand.infraRuntimeClasspath(),
                "kafka.tools.StorageTool",
                List.of("format", "-t", quorum.clusterId(), "-c", properties.toString()));
        try (ChildProcess format = ChildProcess.start("kafka-format", command, Map.of(), dataDir.resolve("format.log"))) {
            Deadline.await("kafka storage format", START_TIMEOUT, Duration.ofMillis(50), () -> { }, () -> !format.isAlive());
            if (!Files.exists(dataDir.resolve("log").resolve("meta.properties"))) {
                format.requireAlive();
                throw new IllegalStateException("formatting Kafka storage failed; see " + format.log());
            }
        }
    }

    private ChildProcess launch() throws IOException {
        List<String> options = new java.util.ArrayList<>(List.of("-Xms128m", "-Xmx1g",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-Djava.awt.headless=true"));
        if ("quick".equals(System.getenv("AGENTRUN_KAFKA_JIT"))) {
            // C1 only (the test JVMs set it): a test broker starts, serves light loads and is killed; C2 compiling its
            // start-up code cost more CPU than anything it then did. Serial GC: G1's concurrent threads and barriers
            // cost a start 4.4 CPU-s where Serial's cost 3.6. Never for the bench, which measures Kafka as deployed.
            options.addAll(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        } else {
            options.add("-XX:+UseG1GC");
        }
        List<String> command = JavaCommand.java(options,
                JavaCommand.infraRuntimeClasspath(),
                ParentWatch.class.getName(),
                List.of("kafka.Kafka", properties.toString()));
        return ChildProcess.start("kafka-" + node.id(), command, Map.of(), dataDir.resolve("kafka.log"), stopOnExit);
    }

    void awaitReady() {
        Deadline.await("Kafka on " + bootstrapServers(), START_TIMEOUT, Duration.ofMillis(100),
                process::requireAlive, this::answersMetadata);
    }

    private boolean answersMetadata() {
        return answersMetadata(bootstrapServers());
    }

    /**
     * True when the Kafka at {@code bootstrapServers} ({@code host:port,…}) answers a metadata request within a few
     * seconds: what a service asks first when it starts. No client is made while none of them listens.
     */
    public static boolean answersMetadata(String bootstrapServers) {
        boolean listening = java.util.Arrays.stream(bootstrapServers.split(",")).map(String::strip)
                .anyMatch(address -> Ports.isOpen(Utils.getHost(address), Utils.getPort(address)));
        if (!listening) {
            return false;
        }
        try (Admin admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3000))) {
            admin.describeCluster().nodes().get(3, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
