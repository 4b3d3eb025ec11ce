package io.agentrun.bench;

import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * {@code ./agentrun bench}: for each concurrency point and phase kind, drives the pipeline and each
 * baseline in turn with the same scripted runs, prints a table, ratios and one summary line (last), and
 * writes the results as JSON (and, for several points, a chart) under {@code bench/results/}.
 */
public final class Bench {

    static final String BURST_AGENT = "bench-burst";
    static final String PACED_AGENT = "bench-paced";
    static final String SHORTEST_AGENT = "bench-shortest";

    /**
     * The pipeline's batching defaults (docs/architecture.md, "Batching"), which hops-raw copies so its ratio stays the
     * limit of this design: the worker's {@code agentrun.worker.event-linger}, the relay's {@code agentrun.relay.fetch-wait}
     * and the fetch size that makes the broker wait for it. kafka-raw keeps the client's defaults (linger 1 ms, a fetch
     * answered at its first record): the latency of the log hop with no budget spent.
     */
    static final int PIPELINE_LINGER_MS = 5;
    static final int PIPELINE_FETCH_WAIT_MS = 5;
    static final int PIPELINE_FETCH_MIN_BYTES = 256 * 1024;

    private final BenchOptions options;
    private final JsonCodec codec = new JsonCodec();
    private final Script script;
    private final Script shortest;
    private @Nullable Stack stack;
    private @Nullable RedisCommandCount redisCommands;

    private Bench(BenchOptions options) {
        this.options = options;
        this.script = new Script(codec, options.words(), options.wordsPerDelta());
        this.shortest = new Script(codec, Script.Size.of(Script.FEWEST_EVENTS));
    }

    /** What a phase kind runs: its pace, its script, and the pipeline's agent that streams the same. */
    private record Runs(long delayMs, Script script, String agent) {
    }

    private Runs runs(String kind) {
        return switch (kind) {
            case "latency" -> new Runs(options.delayMs(), script, PACED_AGENT);
            case "runs" -> new Runs(0, shortest, SHORTEST_AGENT);
            default -> new Runs(0, script, BURST_AGENT);
        };
    }

    public static void main(String[] args) {
        // the command's status (2 for bad input), whatever threads a finished bench leaves behind
        System.exit(BenchCommand.line().execute(args));
    }

    static void measure(BenchOptions options) throws Exception {
        Bench bench = new Bench(options);
        Runtime.getRuntime().addShutdownHook(new Thread(bench::stopStack, "bench-stop"));
        try {
            bench.run();
        } finally {
            bench.stopStack();
        }
    }

    private void run() throws Exception {
        String stamp = Instant.now().toString().replaceAll("[:.]", "-");
        Path jfrDir = options.jfr() ? options.out().resolve("jfr-" + stamp) : null;
        Conditions conditions = Conditions.now(options.forTheRecord());
        List<URI> apis = options.targets();
        String key = options.key();
        String kafka = options.kafka();
        String redis = options.redis();
        if (apis.isEmpty()) {
            say("starting a local stack: " + options.apis() + " api, " + options.workers() + " worker, " + options.relays() + " relay");
            Path state = Files.createTempDirectory("agentrun-bench-");
            say("stack pids and logs: " + state);
            stack = Stack.start(options.home(), launcherClasspath(), options.apis(), options.workers(), options.relays(), state, jfrDir);
            apis = stack.apis();
            key = stack.apiKey();
            kafka = stack.kafka();
            redis = stack.redis();
        }
        if (redis != null) {
            registerAgents(redis);
        }
        redisCommands = RedisCommandCount.open(redis);
        warmJvms(apis, key, kafka, redis);
        List<Phase> phases = new ArrayList<>();
        for (int concurrency : options.concurrency()) {
            for (String kind : options.kinds()) {
                Runs runs = runs(kind);
                for (String mode : options.modes()) {
                    Transport transport = transport(mode, runs, apis, key, kafka, redis);
                    if (transport == null) {
                        say("skipping " + mode + ": no --kafka or --redis given");
                        continue;
                    }
                    try (transport) {
                        phases.add(measure(transport, kind, concurrency, runs));
                    }
                }
            }
        }
        Report report = new Report(conditions, options.forTheRecord(), redis == null ? "unknown" : appendFsync(redis), phases);
        Path json = report.write(codec, options.out(), stamp);
        System.out.println();
        System.out.println(report.table());
        System.out.println(report.ratios());
        System.out.println("results: " + json);
        if (options.concurrency().size() > 1) {
            System.out.println("chart: " + Chart.write(report, options.out(), stamp));
        }
        if (jfrDir != null) {
            stopStack(); // JFR writes its recordings when the JVMs exit
            System.out.println("profiles: " + jfrDir + "  (jfr print --events jdk.ExecutionSample FILE | jfr summary FILE)");
        }
        System.out.println(conditions.git().describe());
        System.out.println(report.summary());
    }

    /** The stack's Redis durability, as the server says (the bench's own stack: {@link Stack#REDIS_FSYNC}). */
    private static String appendFsync(String redisUrl) {
        RedisClient client = RedisClient.create(redisUrl);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return connection.sync().configGet("appendonly", "appendfsync").toString();
        } catch (RuntimeException e) {
            return "unknown (" + e.getMessage() + ")"; // a managed Redis may refuse CONFIG
        } finally {
            client.shutdown();
        }
    }

    /**
     * Drives every mode without pauses (the pipeline for {@code --jit-warmup}, each baseline a quarter of it) at the first concurrency
     * point (at most 200 streams), so the phases measure compiled code. Measured cold, the pipeline spent more
     * CPU in its JVMs' compiler threads than on events (a third to a half of its CPU in the first minutes).
     */
    private void warmJvms(List<URI> apis, @Nullable String key, @Nullable String kafka, @Nullable String redis) throws Exception {
        if (options.jitWarmup().isZero()) {
            return;
        }
        int concurrency = Math.min(200, options.concurrency().get(0));
        List<String> modes = options.modes().stream().filter(m -> !m.equals("share-raw")).toList();
        say("warming the JVMs: " + options.jitWarmup().toSeconds() + " s of load over " + String.join(", ", modes));
        for (String mode : modes) {
            Transport transport = transport(mode, runs("throughput"), apis, key, kafka, redis);
            if (transport != null) {
                try (transport) {
                    // The pipeline's five JVMs get the whole time, each baseline (code in the bench's own JVM) a quarter,
                    // whatever the modes measured: a phase is warmed the same in every invocation.
                    Load.drive(transport, concurrency, mode.equals("pipeline") ? options.jitWarmup() : options.jitWarmup().dividedBy(4),
                            Duration.ofMillis(Math.min(2_000, concurrency * 2L)));
                }
            }
        }
    }

    private Phase measure(Transport transport, String kind, int concurrency, Runs runs) throws Exception {
        long delay = runs.delayMs();
        Duration ramp = Duration.ofMillis(Math.min(5_000, concurrency * 2L));
        if (!options.warmup().isZero()) {
            Load.drive(transport, Math.min(concurrency, 20), options.warmup(), Duration.ZERO);
        }
        Map<String, Long> pids = new LinkedHashMap<>(stack != null ? stack.pids() : Map.of());
        pids.put("bench", ProcessHandle.current().pid());
        ProcessStats stats = ProcessStats.start(pids);
        Map<String, Long> commandsBefore = redisCommands == null ? Map.of() : redisCommands.read();
        say(String.format("%-9s %-10s %5d streams, %d events per run, %s", transport.name(), kind, concurrency,
                runs.script().eventsPerRun(), delay > 0 ? delay + " ms between deltas" : "no pause"));
        Phase.Figures figures = Load.drive(transport, concurrency, options.duration(), ramp);
        Map<String, Double> commandsPerRun = redisCommands == null ? Map.of()
                : RedisCommandCount.perRun(commandsBefore, redisCommands.read(), figures.runs());
        Phase phase = Phase.of(transport.name(), kind, concurrency, delay, runs.script().eventsPerRun(), figures, stats.stop(),
                Conditions.currentLoadAverage(), commandsPerRun);
        say("  " + Report.line(phase));
        say(Report.processes(phase));
        say(Report.cpu(phase));
        say(Report.redisCommands(phase));
        return phase;
    }

    private @Nullable Transport transport(String mode, Runs runs, List<URI> apis, @Nullable String key,
            @Nullable String kafka, @Nullable String redis) throws Exception {
        Script script = runs.script();
        long delay = runs.delayMs();
        String body = codec.write(Map.of("query", script.query()));
        return switch (mode) {
            case "pipeline" -> new SseTransport("pipeline", apis.stream()
                    .map(api -> api.resolve("/api/v1/agents/" + runs.agent() + "/stream/threads")).toList(),
                    Map.of("x-api-key", String.valueOf(key), "x-project-id", options.project()), body);
            case "direct" -> new DirectTransport(new DirectServer(script, delay), body);
            case "kafka-raw" -> kafka == null ? null : new KafkaRawTransport(kafka, script, delay, 1);
            case "redis-raw" -> redis == null ? null : new RedisRawTransport(redis, script, delay);
            case "hops-raw" -> kafka == null || redis == null ? null : new HopsRawTransport(kafka, redis, script, delay,
                    PIPELINE_LINGER_MS, PIPELINE_FETCH_WAIT_MS, body);
            case "share-raw" -> kafka == null ? null : new ShareRawTransport(kafka, delay * (script.eventsPerRun() - 3), shareOverrides());
            default -> throw new IllegalArgumentException(mode);
        };
    }

    /** Consumer settings to try on the share-raw baseline: system properties {@code bench.share.<setting>}. */
    private static Map<String, Object> shareOverrides() {
        Map<String, Object> overrides = new LinkedHashMap<>();
        System.getProperties().stringPropertyNames().stream().filter(n -> n.startsWith("bench.share."))
                .forEach(n -> overrides.put(n.substring("bench.share.".length()), System.getProperty(n)));
        return overrides;
    }

    /**
     * The scripted agents the pipeline phases stream from: one without pauses, one paced like a model, one that
     * streams the shortest reply in one delta.
     */
    private void registerAgents(String redisUrl) {
        RedisClient client = RedisClient.create(redisUrl);
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            register(connection, BURST_AGENT, options.wordsPerDelta(), 0);
            register(connection, PACED_AGENT, options.wordsPerDelta(), options.delayMs());
            register(connection, SHORTEST_AGENT, Script.Size.of(Script.FEWEST_EVENTS).wordsPerDelta(), 0);
        } finally {
            client.shutdown();
        }
    }

    private void register(StatefulRedisConnection<String, String> connection, String agent, int wordsPerDelta, long delayMs) {
        AgentDefinition definition = new AgentDefinition(agent, null, "scripted", null, null, null, null, null,
                null, null, 0, null, 0, false, null, new AgentDefinition.ScriptedOptions(wordsPerDelta, delayMs), null, List.of(), null);
        connection.sync().set(RedisKeys.agent(options.project(), agent), codec.write(definition));
    }

    private String launcherClasspath() throws Exception {
        Path infra = options.home().resolve("infra/target/classes");
        return Files.readString(infra.resolve("io/agentrun/infra/runtime.classpath")).strip() + java.io.File.pathSeparator + infra;
    }

    private void stopStack() {
        RedisCommandCount counter = redisCommands;
        redisCommands = null;
        if (counter != null) {
            counter.close();
        }
        Stack running = stack;
        stack = null;
        if (running != null) {
            try {
                running.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static void say(String message) {
        System.out.println("bench: " + message);
    }

    /** The {@code direct} baseline: its server and the same SSE client the pipeline is measured with. */
    private static final class DirectTransport implements Transport {
        private final DirectServer server;
        private final SseTransport client;

        DirectTransport(DirectServer server, String body) {
            this.server = server;
            this.client = new SseTransport("direct", List.of(server.endpoint()), Map.of(), body);
        }

        @Override
        public String name() {
            return "direct";
        }

        @Override
        public void run(int slot, RunWatch watch) throws Exception {
            client.run(slot, watch);
        }

        @Override
        public void close() {
            client.close();
            server.close();
        }
    }
}
