package io.agentrun.e2e;

import io.agentrun.infra.process.ChildProcess;
import io.agentrun.infra.process.Deadline;
import io.agentrun.infra.process.JavaCommand;
import io.agentrun.infra.process.Ports;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.platform.redis.RedisConnections;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

/**
 * The local stack ({@code ./agentrun local}) as a child process on free ports, for fault injection with
 * real processes: parts are killed with SIGKILL by the pids in its state folder, and it starts them again.
 */
final class StackProcess implements AutoCloseable {

    static final String API_KEY = "ar_sk_fault_injection_" + Long.toHexString(System.nanoTime());
    private static final Pattern READY = Pattern.compile("agentrun is ready: .*; Kafka (\\S+); Redis (\\S+)");

    final Path state;
    final int apiPort;
    final int apis;
    final int kafkaPort;
    private final ChildProcess process;
    private RedisConnections redisClient;
    private String kafka;
    private String redis;

    /** Each stack has a monitor of its own: the two lanes start theirs at the same time. */
    private static final Object SHARED_LOCK = new Object();
    private static final Object CLUSTERS_LOCK = new Object();
    private static StackProcess shared;
    private static StackProcess onClusters;
    /** How long the {@link #onClusters} stack keeps a killed broker down before starting it again. */
    static final Duration BROKER_KEPT_DOWN = Duration.ofSeconds(20);
    /** False for the JVM-wide stacks: a suite's {@code @AutoClose} leaves them to {@link #retire} or the JVM's end. */
    private boolean closable = true;

    /** The broker processes ({@code kafka}, or {@code kafka-1}…) and, unless the stack was given a Redis, {@code redis}. */
    private final List<String> infrastructure;

    private StackProcess(Path state, int apiPort, int apis, int kafkaPort, List<String> infrastructure, ChildProcess process) {
        this.state = state;
        this.apiPort = apiPort;
        this.apis = apis;
        this.kafkaPort = kafkaPort;
        this.infrastructure = infrastructure;
        this.process = process;
    }

    static StackProcess start(int apis, int workers, int relays, Map<String, String> environment) {
        return start(apis, workers, relays, 1, environment);
    }

    /**
     * The 2 api × 2 worker × 2 relay stack shared by the fault suites that need no settings of their own, started by
     * the first of them and stopped once the last has run ({@link #retire}) or with this test JVM (its {@link ChildProcess}
     * stops it on exit): starting six services and a broker takes a CI machine's two cores tens of seconds per suite.
     * Its api nodes keep at most 200 events for a slow client (the slow-client fault needs a small bound; the others do
     * not mind it), and its relays retry a webhook delivery after 200 ms, 500 ms and 1 s (the webhook fault suite's
     * endpoint never fails). A suite must not close it, need it fresh, or count what other suites did: suites tell their
     * runs apart by their own queries and ids, and read metrics as differences. Each is handed the stack with every part
     * serving again (the stack starts killed parts again; a suite may end before it has).
     */
    static StackProcess shared() {
        synchronized (SHARED_LOCK) {
            if (shared == null) {
                shared = start(2, 2, 2, Map.of("AGENTRUN_API_MAXQUEUEDEVENTS", "200",
                        "AGENTRUN_WEBHOOKS_RETRY_DELAYS", "200ms,500ms,1s"));
                shared.closable = false;
            }
            shared.awaitServing();
            return shared;
        }
    }

    /**
     * The 2 api × 2 worker × 2 relay stack on clusters, shared by the two cluster fault suites (Redis Cluster, replicated
     * Kafka) as {@link #shared} is by the others: three KRaft nodes (replication factor 3, {@code min.insync.replicas=2})
     * and the test JVM's Redis Cluster (three primaries with a replica each). A broker killed stays down
     * {@link #BROKER_KEPT_DOWN} before the stack starts it again.
     */
    static StackProcess onClusters() {
        synchronized (CLUSTERS_LOCK) {
            if (onClusters == null) {
                onClusters = start(2, 2, 2, 3, Map.of("REDIS_URL", RealInfrastructure.redisCluster().url(),
                        "AGENTRUN_KAFKA_RESTART_DELAY", BROKER_KEPT_DOWN.toSeconds() + "s"));
                onClusters.closable = false;
            }
            onClusters.awaitServing();
            return onClusters;
        }
    }

    /**
     * Stops the stack whose fault suites hold {@code lock} ({@link SuiteLanes#SHARED_STACK} or
     * {@link SuiteLanes#CLUSTER_STACK}) once its lane is done ({@link FaultStackRetirement}); a later {@link #shared} or
     * {@link #onClusters} starts it again.
     */
    static void retire(String lock) {
        if (lock.equals(SuiteLanes.SHARED_STACK)) {
            synchronized (SHARED_LOCK) {
                shared = closed(shared);
            }
        } else if (lock.equals(SuiteLanes.CLUSTER_STACK)) {
            synchronized (CLUSTERS_LOCK) {
                onClusters = closed(onClusters);
            }
        }
    }

    /** @return null, the stack's new value */
    private static StackProcess closed(StackProcess stack) {
        if (stack != null) {
            stack.closable = true;
            stack.close();
        }
        return null;
    }

    /** Every part of the stack alive again and each service ready on its port. */
    void awaitServing() {
        List<String> services = new java.util.ArrayList<>(List.of("worker-1", "worker-2", "relay-1", "relay-2"));
        IntStream.rangeClosed(1, apis).forEach(n -> services.add("api-" + n));
        for (String part : infrastructure) {
            Deadline.await(part + " to run again", Duration.ofSeconds(120), Duration.ofMillis(200), process::requireAlive,
                    () -> ProcessHandle.of(pid(part)).map(ProcessHandle::isAlive).orElse(false));
        }
        for (String service : services) {
            Deadline.await(service + " to serve again", Duration.ofSeconds(120), Duration.ofMillis(200), process::requireAlive,
                    () -> ready(service));
        }
    }

    private boolean ready(String service) {
        try {
            URI base = service.startsWith("api-") ? api(Integer.parseInt(service.substring(4)) - 1) : management(service);
            var request = java.net.http.HttpRequest.newBuilder(base.resolve("/actuator/health/readiness")).timeout(Duration.ofSeconds(2)).build();
            try (var http = java.net.http.HttpClient.newHttpClient()) {
                return http.send(request, java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
            }
        } catch (IOException | RuntimeException e) {
            return false; // not listening yet, or its pid file names a process that is gone
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** @param kafkaBrokers 1, or 3 for a replicated cluster (pid files {@code kafka-1}…{@code kafka-3}) */
    static StackProcess start(int apis, int workers, int relays, int kafkaBrokers, Map<String, String> environment) {
        try {
            Path home = Path.of("..").toAbsolutePath().normalize();
            Path state = Files.createTempDirectory("agentrun-fault");
            int apiPort = Ports.reserveRun(apis);
            int kafkaPort = Ports.reserveRun(kafkaBrokers);
            List<String> command = JavaCommand.java(List.of("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"),
                    JavaCommand.infraRuntimeClasspath(), "io.agentrun.infra.local.LocalStack",
                    List.of("--home", home.toString(), "--state-dir", state.toString(), "--apis", "" + apis,
                            "--workers", "" + workers, "--relays", "" + relays, "--kafka-brokers", "" + kafkaBrokers,
                            "--api-port", "" + apiPort, "--kafka-port", "" + kafkaPort));
            Map<String, String> env = new java.util.HashMap<>(environment);
            env.put("AGENTRUN_DEV_API_KEY", API_KEY);
            // C1 only: a fault suite starts its services (and each it kills) again and again and loads them lightly; half of
            // a start's CPU is C2 compiling start-up code (see infra's ServiceLaunch).
            env.putIfAbsent("AGENTRUN_SERVICE_JIT", "quick");
            // The stack starts its own redis-server unless the caller names one (a test's Redis Cluster); a REDIS_URL
            // this JVM inherited must not leak into the stack (blank counts as unset).
            env.putIfAbsent("REDIS_URL", "");
            List<String> infrastructure = new java.util.ArrayList<>(kafkaBrokers == 1 ? List.of("kafka")
                    : IntStream.rangeClosed(1, kafkaBrokers).mapToObj(n -> "kafka-" + n).toList());
            if (env.get("REDIS_URL").isBlank()) {
                infrastructure.add("redis");
            }
            StackProcess stack = new StackProcess(state, apiPort, apis, kafkaPort, infrastructure,
                    ChildProcess.start("local-stack", command, env, state.resolve("stack.log")));
            long started = System.nanoTime();
            stack.awaitReady();
            System.out.printf("StackProcess: %d api × %d worker × %d relay × %d broker stack ready in %d ms%n", apis, workers, relays,
                    kafkaBrokers, (System.nanoTime() - started) / 1_000_000);
            stack.requireClassDataArchives(home);
            return stack;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Each service module's class-data archive, which the stack writes when it starts first after a build: without them
     * every service start costs 40% more CPU and the fault suites slow down unnoticed.
     */
    private void requireClassDataArchives(Path home) {
        for (String module : List.of("api-service", "run-worker", "event-relay")) {
            Path archive = home.resolve(module).resolve("target/launch/cds").resolve(module + ".jsa");
            if (!Files.isRegularFile(archive)) {
                throw new IllegalStateException("the stack wrote no class-data archive " + archive + "; see " + state.resolve("logs")
                        .resolve(module + "-archiving.log") + " and " + state.resolve("stack.log"));
            }
        }
    }

    /** The operator token the stack made (or was given), for {@code /admin/v1}. */
    String adminToken() {
        try {
            return Files.readString(state.resolve("admin-token")).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    URI api(int node) {
        return URI.create("http://localhost:" + (apiPort + node));
    }

    ApiClient client(int node) {
        return new ApiClient(api(node), "demo", API_KEY);
    }

    /** A client for each api node. */
    List<ApiClient> clients() {
        return IntStream.range(0, apis).mapToObj(this::client).toList();
    }

    String kafkaBootstrap() {
        return kafka;
    }

    String redisUrl() {
        return redis;
    }

    long pid(String name) {
        try {
            return Long.parseLong(Files.readString(state.resolve(name + ".pid")).strip());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** SIGKILL, as {@code kill -9 $(cat .agentrun/<name>.pid)} would; returns when the stack has started it again. */
    void kill9AndAwaitRestart(String name) {
        long pid = pid(name);
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        Deadline.await(name + " to be started again", Duration.ofSeconds(120), Duration.ofMillis(200), process::requireAlive,
                () -> pid(name) != pid && ProcessHandle.of(pid(name)).map(ProcessHandle::isAlive).orElse(false));
    }

    void kill9(String name) {
        ProcessHandle.of(pid(name)).ifPresent(ProcessHandle::destroyForcibly);
    }

    /**
     * SIGSTOP, as {@code kill -STOP $(cat .agentrun/<name>.pid)}: the process freezes with its sockets open (a
     * long GC pause, a hung VM); the stack does not notice, since the process is still alive. Undo with
     * {@link #resume}.
     */
    void stop(String name) {
        signal("STOP", pid(name));
    }

    /** SIGCONT: a process frozen by {@link #stop} goes on where it was. */
    void resume(String name) {
        signal("CONT", pid(name));
    }

    /**
     * The HTTP port of a worker or relay (they serve only health and metrics there): the local stack gives
     * each its own free port in {@code PORT} of its environment, kept across restarts, and records it nowhere
     * else; Linux shows a process's environment in {@code /proc/<pid>/environ}.
     */
    int managementPort(String name) {
        try {
            String environ = Files.readString(Path.of("/proc", Long.toString(pid(name)), "environ"), StandardCharsets.UTF_8);
            for (String entry : environ.split("\u0000")) {
                if (entry.startsWith("PORT=")) {
                    return Integer.parseInt(entry.substring("PORT=".length()));
                }
            }
            throw new IllegalStateException(name + " has no PORT in its environment");
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the environment of " + name, e);
        }
    }

    URI management(String name) {
        return URI.create("http://localhost:" + managementPort(name));
    }

    /** The last lines of one part's log ({@code logs/<name>.log}), for a failure message. */
    String logTail(String name, int lines) {
        return tail(state.resolve("logs").resolve(name + ".log"), lines);
    }

    /** The lines of every part's log (a restarted part's included) that contain {@code text}, each prefixed by its part. */
    List<String> logLinesContaining(String text) {
        try (var logs = Files.list(state.resolve("logs"))) {
            List<String> found = new java.util.ArrayList<>();
            for (Path log : logs.sorted().toList()) {
                try (var lines = Files.lines(log, StandardCharsets.UTF_8)) {
                    lines.filter(line -> line.contains(text)).forEach(line -> found.add(log.getFileName() + ": " + line));
                }
            }
            return found;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void signal(String signal, long pid) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true).start();
            String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid + " failed: " + output.strip());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private void awaitReady() {
        try {
            awaitReadyLine();
        } catch (IllegalStateException e) {
            throw new IllegalStateException(e.getMessage() + "\n" + diagnosis(), e);
        }
    }

    /**
     * What a stack that did not get ready was doing: its own log, each part's last lines, and how busy the
     * machine was (a stack that is slow to start on a loaded CI machine looks the same as one that hangs).
     */
    private String diagnosis() {
        StringBuilder text = new StringBuilder("load average: ");
        try {
            text.append(Files.readString(Path.of("/proc/loadavg")).strip());
        } catch (IOException e) {
            text.append("unknown");
        }
        text.append("; processes of this test JVM: ").append(ProcessHandle.current().descendants().count())
                .append("; all processes: ").append(ProcessHandle.allProcesses().count())
                .append("\n--- stack.log ---\n").append(tail(state.resolve("stack.log"), 40));
        try (var logs = Files.list(state.resolve("logs"))) {
            logs.sorted().forEach(log -> text.append("\n--- ").append(log.getFileName()).append(" ---\n").append(tail(log, 15)));
        } catch (IOException | UncheckedIOException e) {
            text.append("\n(no part logs: ").append(e.getMessage()).append(')');
        }
        return text.toString();
    }

    private static String tail(Path log, int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    private void awaitReadyLine() {
        // Longer than the stack's own bounds together (Kafka's format and start, 90 s each; the api's health, 3 min),
        // so that a stack that cannot start says why itself, and exits, before this gives up on it.
        Deadline.await("the local stack to be ready", Duration.ofMinutes(7), Duration.ofMillis(250), process::requireAlive, () -> {
            try {
                Matcher m = READY.matcher(Files.readString(state.resolve("stack.log"), StandardCharsets.UTF_8));
                if (m.find()) {
                    kafka = m.group(1);
                    redis = m.group(2);
                    return true;
                }
                return false;
            } catch (IOException e) {
                return false;
            }
        });
    }

    @Override
    public void close() {
        if (!closable) {
            return;
        }
        synchronized (this) {
            if (redisClient != null) {
                redisClient.close();
            }
        }
        List<ProcessHandle> parts = process.descendants();
        // SIGKILL, parts first: everything a test stack holds is thrown away, and stopped cleanly its three brokers
        // wait out a grace period without a quorum (10 s of a lane's thread). kill() waits for every part to be gone.
        process.kill();
        process.close();
        // A part still alive after the kill's grace would slow every later suite.
        List<ProcessHandle> left = parts.stream().filter(ProcessHandle::isAlive).toList();
        if (!left.isEmpty()) {
            System.err.println("StackProcess: " + left.size() + " parts outlived their stack; killing " + left.stream()
                    .map(p -> p.pid() + " " + p.info().command().orElse("?")).toList());
            left.forEach(ProcessHandle::destroyForcibly);
        }
    }

    /** A client of the stack's Redis (a single node or a cluster), opened on first use and closed with the stack. */
    synchronized RedisConnections redis() {
        if (redisClient == null) {
            redisClient = RedisConnections.connect(redisUrl());
        }
        return redisClient;
    }
}
