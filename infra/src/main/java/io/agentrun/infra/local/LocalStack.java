package io.agentrun.infra.local;

import io.agentrun.infra.kafka.KafkaBroker;
import io.agentrun.infra.kafka.KafkaCluster;
import io.agentrun.infra.process.ChildProcess;
import io.agentrun.infra.process.Deadline;
import io.agentrun.infra.process.Ports;
import io.agentrun.infra.redis.RedisCluster;
import io.agentrun.infra.redis.RedisEndpoints;
import io.agentrun.infra.redis.RedisServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;

/**
 * {@code ./agentrun local}: the whole pipeline on this machine with real parts — a KRaft Kafka broker,
 * a redis-server (or {@code REDIS_URL}), api nodes, workers and relays as separate processes — seeded
 * with project {@code demo}, the agents of {@code agents.yml} and a secret key. It supervises what it
 * started: a process that dies (say, {@code kill -9} by pid from {@code .agentrun/}) is started again on
 * the same ports and data, which is how the fault-injection tests crash and recover parts. Each part is restarted on
 * its own ({@link Supervisor}), a service once the Kafka and Redis it needs at start answer. Ctrl-C or SIGTERM stops
 * everything, front to back.
 */
public final class LocalStack {

    private static final Duration READY_TIMEOUT = Duration.ofMinutes(3);

    /** How often a service waiting to be started again asks whether Kafka and Redis answer. */
    private static final Duration INFRASTRUCTURE_POLL = Duration.ofMillis(500);

    private final StackOptions options;
    private final ServiceLaunch launcher;
    private final Path state;
    private final List<Service> services = new ArrayList<>();
    private RedisServer redis;
    private RedisCluster redisCluster;
    /** The Redis processes this stack started and keeps alive (none when it was given a REDIS_URL). */
    private List<RedisServer> redisNodes = List.of();
    /** One broker, or the nodes of a cluster ({@code --kafka-brokers}); pid files {@code kafka} or {@code kafka-<n>}. */
    private List<KafkaBroker> kafka = List.of();
    private String kafkaBootstrap;
    private final Supervisor supervisor = new Supervisor();
    private DevSessionIssuer sessions;
    private DemoPage demo;

    /** A supervised service process and how to start it again. */
    private static final class Service {
        final String name;
        final String module;
        final List<String> args;
        final Map<String, String> env;
        final Path log;
        final StartBackOff backOff = new StartBackOff();
        volatile ChildProcess process;
        volatile long launchedAt;

        Service(String name, String module, List<String> args, Map<String, String> env, Path log) {
            this.name = name;
            this.module = module;
            this.args = args;
            this.env = env;
            this.log = log;
        }

        Duration ranFor() {
            return Duration.ofNanos(System.nanoTime() - launchedAt);
        }
    }

    private LocalStack(StackOptions options) {
        this.options = options;
        this.launcher = new ServiceLaunch(options.home());
        this.state = options.stateDir();
    }

    public static void main(String[] args) {
        int status = StackCommand.line().execute(args);
        // A stack that ran returns here once its shutdown hook stopped it; exiting again from here would wait on that hook.
        if (status != 0) {
            System.exit(status);
        }
    }

    /** Starts the stack and keeps it until the process is told to stop (Ctrl-C); a failure to start ends the process. */
    static void run(StackOptions options) throws InterruptedException {
        LocalStack stack = new LocalStack(options);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stack.stop();
            stopped.countDown();
        }, "agentrun-stop"));
        try {
            stack.start();
        } catch (RuntimeException | IOException e) {
            // Any failure to start ends the process (its shutdown hook stops what did start), so whoever waits for
            // the ready line hears of it at once instead of at its own deadline.
            System.err.println("agentrun: could not start the local stack: " + e.getMessage());
            System.err.println("agentrun: logs are in " + stack.state.resolve("logs"));
            System.exit(1);
        }
        stopped.await();
    }

    private void start() throws IOException {
        prepareStateDir();
        String redisUrl = System.getenv("REDIS_URL");
        if ((redisUrl == null || redisUrl.isBlank()) && options.redisCluster()) {
            say("starting a Redis Cluster (3 primaries, a replica each)");
            redisCluster = RedisCluster.start(state.resolve("redis"), 3, 1);
            redisNodes = redisCluster.nodes();
            redisUrl = redisCluster.url();
        } else if (redisUrl == null || redisUrl.isBlank()) {
            String fsync = redisFsync();
            say("starting redis-server (appendfsync " + fsync + ")");
            redis = RedisServer.startDurable(state.resolve("redis"), false, fsync);
            redisNodes = List.of(redis);
            redisUrl = redis.url();
        }
        for (int i = 0; i < redisNodes.size(); i++) {
            writePid(redisNodes.size() == 1 ? "redis" : "redis-" + (i + 1), redisNodes.get(i).pid());
        }
        startKafka();

        String configuredKey = System.getenv("AGENTRUN_DEV_API_KEY");
        String adminToken = adminToken();
        sessions = new DevSessionIssuer();
        Map<String, String> shared = new java.util.HashMap<>(Map.of(
                "KAFKA_BOOTSTRAP_SERVERS", kafkaBootstrap,
                "MANAGEMENT_ENDPOINT_HEALTH_SHOW_DETAILS", "always"));
        shared.putAll(RedisEndpoints.environment(redisUrl));
        // Uploaded files: on disk, served by the first api node, URLs signed with a key of this stack's own.
        shared.put("AGENTRUN_STORAGE_DIR", state.resolve("files").toString());
        shared.put("AGENTRUN_STORAGE_PUBLIC_URL", "http://localhost:" + options.apiPort());
        shared.put("AGENTRUN_STORAGE_SECRET", java.util.UUID.randomUUID() + "-" + java.util.UUID.randomUUID());
        // Webhooks: signing secrets sealed with a key of this stack's own; receivers on this machine allowed (a
        // production deployment allows no private address unless its operator names the network).
        byte[] webhookKey = new byte[32];
        new java.security.SecureRandom().nextBytes(webhookKey);
        shared.put("AGENTRUN_WEBHOOKS_SECRET_KEY", java.util.Base64.getEncoder().encodeToString(webhookKey));
        shared.put("AGENTRUN_WEBHOOKS_ALLOWED_NETWORKS", "127.0.0.0/8,::1/128");
        // The demo MCP server is on the api's port: workers may reach this machine's MCP servers.
        shared.put("AGENTRUN_MCP_ALLOWED_NETWORKS", "127.0.0.0/8,::1/128");
        // For `./agentrun replay | tail | rebuild-state`, which read the same Kafka and Redis as this stack.
        Files.writeString(state.resolve("endpoints.env"), "KAFKA_BOOTSTRAP_SERVERS=" + kafkaBootstrap
                + "\nREDIS_URL=" + redisUrl + "\n", StandardCharsets.UTF_8);
        for (int i = 1; i <= options.relays(); i++) {
            plan("relay-" + i, "event-relay", withManagementPort(shared), List.of("--agentrun.relay.id=relay-" + i));
        }
        for (int i = 1; i <= options.workers(); i++) {
            // demo-tools: the agents.yml assistant's `wait` tool, to try a cancel mid-tool-call (off in production)
            plan("worker-" + i, "run-worker", withManagementPort(shared), List.of("--agentrun.worker.id=worker-" + i,
                    "--agentrun.worker.demo-tools=true"));
        }
        List<Integer> apiPorts = new ArrayList<>();
        for (int i = 1; i <= options.apis(); i++) {
            int port = options.apiPort() + i - 1;
            if (Ports.isOpen("localhost", port)) {
                throw new IllegalStateException("port " + port + " is already in use (set --api-port)");
            }
            apiPorts.add(port);
            Map<String, String> env = new java.util.HashMap<>(shared);
            env.put("PORT", Integer.toString(port));
            env.put("AGENTRUN_BOOTSTRAP_PROJECT", options.projectId());
            // Secrets by environment, so they show in no process list.
            if (configuredKey != null && !configuredKey.isBlank()) {
                env.put("AGENTRUN_DEV_API_KEY", configuredKey.strip());
            }
            env.put("AGENTRUN_ADMIN_TOKEN", adminToken);
            env.put("AGENTRUN_DEMO_MCP_SERVER", "true");
            env.put("AGENTRUN_SESSION_ISSUER", sessions.issuer());
            env.put("AGENTRUN_SESSION_JWKS_URI", sessions.jwksUri());
            Path agentsFile = options.home().resolve("agents.yml");
            if (Files.exists(agentsFile)) {
                env.put("AGENTRUN_AGENTS_FILE", agentsFile.toString());
            }
            plan("api-" + i, "api-service", env, List.of());
        }
        archiveMissingClasses();
        for (Service service : services) {
            launch(service);
        }
        for (int port : apiPorts) {
            awaitHealthy(port);
        }
        String apiKey = configuredKey != null && !configuredKey.isBlank() ? configuredKey.strip()
                : createKey(apiPorts.getFirst(), adminToken, "{\"kind\":\"secret\",\"label\":\"local\",\"environment\":\"development\"}");
        demo = new DemoPage(options.apiPort() + 10);
        int demoPort = demo.port();
        String demoOrigin = "http://localhost:" + demoPort;
        String publishableKey = createKey(apiPorts.getFirst(), adminToken, ("{\"kind\":\"publishable\",\"label\":\"demo page\","
                + "\"environment\":\"development\",\"agents\":[\"assistant\"],\"allowed_origins\":[\"%s\",\"http://127.0.0.1:%d\"]}")
                .formatted(demoOrigin, demoPort));
        demo.serve("http://localhost:" + apiPorts.getFirst(), publishableKey);
        printReady(apiPorts, redisUrl, apiKey, adminToken, sessions.mint(options.projectId(), Duration.ofHours(12)), demoOrigin);
        supervise();
    }

    /** Starts again whatever dies, on the same ports and data, each part on its own, until the stack stops. */
    private void supervise() {
        for (RedisServer node : redisNodes) {
            supervisor.watch(redisName(node), node::exited, () -> restartRedis(node));
        }
        for (KafkaBroker broker : kafka) {
            supervisor.watch(kafkaName(broker), broker::exited, () -> restartKafka(broker));
        }
        for (Service service : services) {
            supervisor.watch(service.name, () -> service.process.exited(), () -> restartService(service));
        }
    }

    private void restartRedis(RedisServer node) throws IOException {
        say("redis-server on port " + node.port() + " exited; starting it again");
        node.restart();
        writePid(redisName(node), node.pid());
    }

    private String redisName(RedisServer node) {
        return redisNodes.size() == 1 ? "redis" : "redis-" + (redisNodes.indexOf(node) + 1);
    }

    /**
     * A service that exited starts again at once, or after its {@link StartBackOff} when it keeps exiting soon after its
     * start, and only once the Kafka and Redis this stack runs answer: a service asks both at start and exits when one
     * does not.
     */
    private void restartService(Service service) throws IOException, InterruptedException {
        Duration ran = service.ranFor();
        Duration wait = service.backOff.after(ran);
        say(service.name + " exited" + (wait.isZero() ? "; starting it again"
                : " again " + ran.toSeconds() + " s after its start; starting it again in " + wait.toSeconds() + " s"));
        if (supervisor.waitUnlessStopping(wait) && awaitInfrastructure(service.name)) {
            launch(service);
        }
    }

    /**
     * Until every Redis node this stack runs answers PING and its Kafka answers a metadata request: a question asked
     * again every {@link #INFRASTRUCTURE_POLL}, since nothing tells when a restarted broker begins to serve.
     *
     * @return false when the stack began to stop meanwhile
     */
    private boolean awaitInfrastructure(String waiting) throws InterruptedException {
        boolean said = false;
        while (!infrastructureAnswers()) {
            if (!said) {
                say(waiting + " waits for Kafka and Redis to answer");
                said = true;
            }
            if (!supervisor.waitUnlessStopping(INFRASTRUCTURE_POLL)) {
                return false;
            }
        }
        return true;
    }

    private boolean infrastructureAnswers() {
        return redisNodes.stream().allMatch(node -> RedisServer.ping("127.0.0.1", node.port()))
                && KafkaBroker.answersMetadata(kafkaBootstrap);
    }

    private void startKafka() throws IOException {
        String external = System.getenv("KAFKA_BOOTSTRAP_SERVERS");
        if (external != null && !external.isBlank()) {
            // As with REDIS_URL: an existing Kafka, which this stack neither starts nor brings back
            say("using Kafka at " + external.strip());
            kafkaBootstrap = external.strip();
            return;
        }
        if (options.kafkaBrokers() == 1) {
            say("starting Kafka (KRaft) on localhost:" + options.kafkaPort());
            KafkaBroker broker = KafkaBroker.start(state.resolve("kafka"), options.kafkaPort(), false);
            kafka = List.of(broker);
            kafkaBootstrap = broker.bootstrapServers();
        } else {
            say("starting a Kafka cluster of " + options.kafkaBrokers() + " KRaft nodes on localhost:" + options.kafkaPort()
                    + "–" + (options.kafkaPort() + options.kafkaBrokers() - 1));
            KafkaCluster cluster = KafkaCluster.start(state.resolve("kafka"), options.kafkaBrokers(), options.kafkaPort(), false);
            kafka = cluster.brokers();
            kafkaBootstrap = cluster.bootstrapServers();
        }
        for (KafkaBroker broker : kafka) {
            writePid(kafkaName(broker), broker.pid());
        }
    }

    /**
     * {@code AGENTRUN_REDIS_FSYNC}: {@code always} by default, so a Redis the fault tests kill keeps every acknowledged
     * write; the bench's stack passes {@code everysec}, what production runs (with a replica).
     */
    private static String redisFsync() {
        String value = System.getenv("AGENTRUN_REDIS_FSYNC");
        return value == null || value.isBlank() ? "always" : value.strip();
    }

    /**
     * Starts a dead broker again on its data and ports, at once or, with {@code AGENTRUN_KAFKA_RESTART_DELAY}
     * (e.g. {@code 20s}), after it has been down that long: a cluster then runs without it for a while, as after a
     * lost machine, before it comes back and catches up. Returns once the broker serves (its watch waits, no other).
     */
    private void restartKafka(KafkaBroker broker) throws InterruptedException {
        Duration delay = kafkaRestartDelay();
        say(kafkaName(broker) + " exited; starting it again" + (delay.isZero() ? "" : " in " + delay.toMillis() + " ms"));
        if (!supervisor.waitUnlessStopping(delay)) {
            return;
        }
        broker.restart(pid -> {
            try {
                writePid(kafkaName(broker), pid);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    private static Duration kafkaRestartDelay() {
        return java.util.Optional.ofNullable(System.getenv("AGENTRUN_KAFKA_RESTART_DELAY")).filter(v -> !v.isBlank())
                .map(v -> Duration.parse("PT" + v.strip().toUpperCase(java.util.Locale.ROOT))).orElse(Duration.ZERO);
    }

    private String kafkaName(KafkaBroker broker) {
        return kafka.size() == 1 ? "kafka" : "kafka-" + broker.nodeId();
    }

    private void plan(String name, String module, Map<String, String> env, List<String> args) {
        services.add(new Service(name, module, args, env, state.resolve("logs").resolve(name + ".log")));
    }

    /** The class-data archive of each module that has none, written by one start of each at once (the first stack after a build). */
    private void archiveMissingClasses() {
        Map<String, Service> firstOfEach = new java.util.LinkedHashMap<>();
        services.forEach(service -> firstOfEach.putIfAbsent(service.module, service));
        try (var archiving = java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor()) {
            for (Service service : firstOfEach.values()) {
                archiving.submit(() -> {
                    try {
                        launcher.archiveIfMissing(service.module, service.env, service.args,
                                state.resolve("logs").resolve(service.module + "-archiving.log"));
                    } catch (IOException e) {
                        say(e.getMessage() + "; " + service.module + " starts without a class-data archive");
                    }
                });
            }
        }
    }

    private void launch(Service service) throws IOException {
        // Built at each start: a restart uses the class-data archive written since the first.
        List<String> command = launcher.command(service.module, service.args);
        service.process = ChildProcess.start(service.name, command, service.env, service.log, false);
        service.launchedAt = System.nanoTime();
        writePid(service.name, service.process.pid());
    }

    private void awaitHealthy(int port) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        URI health = URI.create("http://localhost:" + port + "/actuator/health");
        say("waiting for the pipeline behind http://localhost:" + port + " to be ready");
        Deadline.await("api on port " + port + " to report UP", READY_TIMEOUT, Duration.ofMillis(250),
                () -> services.forEach(service -> service.process.requireAlive()),
                () -> {
                    try {
                        HttpResponse<String> response = http.send(HttpRequest.newBuilder(health)
                                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
                        return response.statusCode() == 200 && response.body().contains("\"UP\"");
                    } catch (IOException e) {
                        return false;
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return false;
                    }
                });
    }

    private void printReady(List<Integer> apiPorts, String redisUrl, String apiKey, String adminToken, String sessionToken,
            String demoOrigin) {
        String api = "http://localhost:" + apiPorts.getFirst();
        System.out.printf("""

                agentrun is ready: %d api (%s), %d worker, %d relay; Kafka %s; Redis %s
                  project: %s   agent: assistant   secret key: %s
                  admin token: %s   (./agentrun admin GET /admin/v1/projects)
                  dev session token (12 h, project %s): %s
                  console: %s/console   (sign in with the dev session token, or the admin token)
                  widget demo (a page on its own origin with a publishable key): %s/
                  pids and logs: %s

                Try it (the examples of README.md and docs/api.md read KEY and ADMIN):
                  export KEY='%s' ADMIN='%s'
                  curl -N %s/api/v1/agents/assistant/stream/threads \\
                    -H "x-api-key: $KEY" -H 'x-project-id: %s' \\
                    -H 'content-type: application/json' -d '{"query":"Hello, agent"}'

                Press Ctrl-C to stop everything.
                %n""",
                apiPorts.size(), apiPorts.stream().map(p -> "http://localhost:" + p).toList().toString().replaceAll("[\\[\\]]", ""),
                options.workers(), options.relays(), kafkaBootstrap, redisUrl,
                options.projectId(), apiKey, adminToken, options.projectId(), sessionToken, api, demoOrigin, state, apiKey, adminToken, api, options.projectId());
        System.out.flush();
    }

    /**
     * Supervision ends first, so that no restart launches a part this has already stopped; then front to back: nothing
     * new enters while the rest drains; then the broker and Redis.
     */
    private void stop() {
        say("stopping");
        supervisor.stop();
        List<ChildProcess> processes = services.stream().map(s -> s.process).filter(java.util.Objects::nonNull).toList();
        processes.parallelStream().filter(p -> p.name().startsWith("api-")).forEach(ChildProcess::close);
        processes.parallelStream().filter(p -> p.name().startsWith("worker-")).forEach(ChildProcess::close);
        processes.parallelStream().forEach(ChildProcess::close);
        kafka.parallelStream().forEach(KafkaBroker::close);
        if (redis != null) {
            redis.close();
        }
        if (redisCluster != null) {
            redisCluster.close();
        }
        if (sessions != null) {
            sessions.close();
        }
        if (demo != null) {
            demo.close();
        }
        try (Stream<Path> pids = Files.exists(state) ? Files.list(state) : Stream.empty()) {
            pids.filter(p -> p.toString().endsWith(".pid")).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            System.err.println("agentrun: could not remove pid files: " + e.getMessage());
        }
        say("stopped");
    }

    private void prepareStateDir() throws IOException {
        // A fresh broker, cache and logs every time: the local stack is for trying things, not for keeping them.
        for (String dir : List.of("kafka", "redis", "logs")) {
            Path path = state.resolve(dir);
            if (Files.exists(path)) {
                try (Stream<Path> walk = Files.walk(path)) {
                    walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
                }
            }
        }
        Files.createDirectories(state.resolve("logs"));
    }

    /** Workers and relays serve only health and metrics; each gets a free port, kept across restarts. */
    private static Map<String, String> withManagementPort(Map<String, String> shared) {
        Map<String, String> env = new java.util.HashMap<>(shared);
        env.put("PORT", Integer.toString(Ports.reserveRun(1)));
        return env;
    }

    /** Written aside and moved into place, so a reader never sees the file empty or half written. */
    private void writePid(String name, long pid) throws IOException {
        Path written = state.resolve(name + ".pid.tmp");
        Files.writeString(written, pid + "\n", StandardCharsets.US_ASCII);
        Files.move(written, state.resolve(name + ".pid"), java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    /** The operator token: {@code AGENTRUN_ADMIN_TOKEN} when set, else a new one, kept (0600) for {@code ./agentrun admin}. */
    private String adminToken() throws IOException {
        String configured = System.getenv("AGENTRUN_ADMIN_TOKEN");
        String token;
        if (configured != null && !configured.isBlank()) {
            token = configured.strip();
        } else {
            byte[] random = new byte[24];
            new SecureRandom().nextBytes(random);
            token = "adm_" + HexFormat.of().formatHex(random);
        }
        Path file = state.resolve("admin-token");
        Files.deleteIfExists(file);
        Files.createFile(file, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, token, StandardCharsets.US_ASCII);
        return token;
    }

    /** A development key for the demo project, made through the admin API like any other key. */
    private String createKey(int apiPort, String adminToken, String json) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + apiPort + "/admin/v1/projects/"
                        + options.projectId() + "/keys"))
                .header("Authorization", "Bearer " + adminToken).header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .timeout(Duration.ofSeconds(10)).build();
        try {
            HttpResponse<String> response = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
            java.util.regex.Matcher key = java.util.regex.Pattern.compile("\"api_key\":\"([^\"]+)\"").matcher(response.body());
            if (response.statusCode() != 201 || !key.find()) {
                throw new IllegalStateException("could not create the demo key: HTTP " + response.statusCode());
            }
            return key.group(1);
        } catch (IOException e) {
            throw new IllegalStateException("could not create the demo key: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static void say(String message) {
        System.out.println("agentrun: " + message);
    }
}
