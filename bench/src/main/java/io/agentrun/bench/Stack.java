package io.agentrun.bench;

import io.agentrun.infra.process.Ports;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A local stack for the bench: {@code ./agentrun local}'s launcher ({@code LocalStack}) in a child JVM on
 * free ports with its own state folder, so it never meets a developer's stack on 8080/9092.
 */
final class Stack implements AutoCloseable {

    private static final Duration READY_TIMEOUT = Duration.ofMinutes(4);
    static final String REDIS_FSYNC = "everysec";
    private static final Pattern READY = Pattern.compile("Kafka (\\S+); Redis (\\S+)");

    private final Process process;
    private final Path stateDir;
    private final List<URI> apis;
    private final String apiKey;
    private final String kafka;
    private final String redis;

    private Stack(Process process, Path stateDir, List<URI> apis, String apiKey, String kafka, String redis) {
        this.process = process;
        this.stateDir = stateDir;
        this.apis = apis;
        this.apiKey = apiKey;
        this.kafka = kafka;
        this.redis = redis;
    }

    /**
     * @param launcherClasspath infra's runtime classpath (what {@code ./agentrun local} runs)
     * @param jfrDir            when set, every JVM of the stack records a JFR profile into it
     */
    static Stack start(Path home, String launcherClasspath, int apis, int workers, int relays, Path stateDir, Path jfrDir)
            throws IOException, InterruptedException {
        int apiPort = Ports.reserveRun(apis);
        String key = "ar_sk_bench_" + HexFormat.of().formatHex(new SecureRandom().generateSeed(12));
        List<String> command = List.of(javaExecutable(), "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-cp", launcherClasspath,
                "io.agentrun.infra.local.LocalStack", "--home", home.toString(), "--state-dir", stateDir.toString(),
                "--apis", Integer.toString(apis), "--workers", Integer.toString(workers), "--relays", Integer.toString(relays),
                "--api-port", Integer.toString(apiPort), "--kafka-port", Integer.toString(Ports.reserve()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().remove("REDIS_URL");
        builder.environment().remove("AGENTRUN_SERVICE_JIT"); // C1 only would measure code production does not run
        builder.environment().remove("AGENTRUN_KAFKA_JIT");
        builder.environment().put("AGENTRUN_DEV_API_KEY", key);
        // What production runs (with a replica; Kafka is the record): the local stack's default, fsync on every write,
        // is for the fault tests that kill redis-server, and cost 25 % of the pipeline's events/s (docs/performance.md).
        builder.environment().put("AGENTRUN_REDIS_FSYNC", REDIS_FSYNC);
        if (jfrDir != null) {
            Files.createDirectories(jfrDir);
            builder.environment().put("JAVA_TOOL_OPTIONS",
                    "-XX:StartFlightRecording=settings=profile,jdk.ExecutionSample#period=1ms,dumponexit=true,filename=" + jfrDir);
        }
        Process process = builder.start();
        Matcher ready = awaitReady(process);
        List<URI> endpoints = new ArrayList<>();
        for (int i = 0; i < apis; i++) {
            endpoints.add(URI.create("http://localhost:" + (apiPort + i)));
        }
        return new Stack(process, stateDir, endpoints, key, ready.group(1), ready.group(2));
    }

    private static Matcher awaitReady(Process process) throws IOException, InterruptedException {
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<Matcher> ready = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("bench-stack-out").start(() -> {
            try {
                for (String line; (line = out.readLine()) != null; ) {
                    Matcher m = READY.matcher(line);
                    if (!ready.isDone() && m.find()) {
                        ready.complete(m);
                    } else if (!ready.isDone()) {
                        System.out.println("  " + line);
                    }
                }
                ready.completeExceptionally(new IOException("the local stack exited before it was ready"));
            } catch (IOException e) {
                ready.completeExceptionally(e);
            }
        });
        try {
            return ready.get(READY_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            process.destroy();
            throw new IOException("the local stack did not become ready: " + e.getMessage(), e);
        }
    }

    List<URI> apis() {
        return apis;
    }

    String apiKey() {
        return apiKey;
    }

    String kafka() {
        return kafka;
    }

    String redis() {
        return redis;
    }

    /** The stack's processes by name (api-1, worker-1, relay-1, kafka, redis), from its pid files. */
    Map<String, Long> pids() throws IOException {
        Map<String, Long> pids = new LinkedHashMap<>();
        try (Stream<Path> files = Files.list(stateDir)) {
            files.filter(f -> f.getFileName().toString().endsWith(".pid")).sorted().forEach(f -> {
                try {
                    pids.put(f.getFileName().toString().replace(".pid", ""), Long.parseLong(Files.readString(f).strip()));
                } catch (IOException | NumberFormatException e) {
                    // a pid file being rewritten by a restart: skip it this time
                }
            });
        }
        return pids;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }

    private static String javaExecutable() {
        return ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
    }

}
