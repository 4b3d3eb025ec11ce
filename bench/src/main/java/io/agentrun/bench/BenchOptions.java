package io.agentrun.bench;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Options of {@code ./agentrun bench}.
 *
 * @param concurrency  the concurrency points, one measured after the other
 * @param kinds        {@code throughput} (no pause between deltas), {@code latency} (paced deltas), {@code runs} (no
 *                     pause, the scripted model's smallest run: CPU per run with as few events as it can have)
 * @param delayMs      pause before each delta in latency phases, like a model's pace
 * @param targets      api nodes of a running stack; empty = start a local stack
 * @param jitWarmup    load before the first phase, so every JVM (the stack's and the bench's own) has compiled its
 *                     hot code: services run warm in production, and a cold JIT costs the pipeline's five JVMs
 *                     far more than the one-class baselines
 * @param args         the command line as given, for the record (a key's value redacted)
 */
record BenchOptions(Path home, Path out, List<Integer> concurrency, Duration duration, Duration warmup, Duration jitWarmup, List<String> modes,
        List<String> kinds, int words, int wordsPerDelta, long delayMs, int apis, int workers, int relays, boolean jfr,
        List<URI> targets, @Nullable String key, String project, @Nullable String kafka, @Nullable String redis, String label,
        List<String> args) {

    private static final String REDACTED = "<redacted>";
    static final List<String> KINDS = List.of("throughput", "latency", "runs");

    static final String USAGE = """
            usage: ./agentrun bench [--quick | --sweep] [options]
              --quick                    one point, 50 streams, 5 s phases (about 5 minutes with the stack start and JIT warm-up)
              --sweep                    concurrency 1, 100, 1000, 5000 (or --concurrency A,B,…)
              --concurrency N[,M…]       concurrent streams (default 100)
              --duration 10s             the measured window of each phase, after the ramp (clients start 2 ms apart, at most 5 s);
                                         --warmup 3s  unmeasured runs first (20 clients)
              --jit-warmup 60s           load before the first phase (pipeline: all of it, each baseline a quarter), so the JVMs have compiled
                                         their hot code (0s: measure cold JVMs)
              --modes pipeline,direct,kafka-raw,redis-raw,hops-raw[,share-raw]
                                         hops-raw: HTTP → Kafka → one consumer → Redis stream + pub/sub → SSE, no per-run state
                                         share-raw: the command hop alone (a share consumer accepting each command
                                         on pick-up; -Dbench.share-hold=true holds it with RENEW for the run's
                                         length, the first design); try settings with -Dbench.share.NAME=VALUE
                                         kafka-raw, hops-raw: try consumer settings with -Dbench.kafka.NAME=VALUE
              --kinds throughput,latency,runs
                                         throughput: no pause between deltas; latency: --delay-ms before each delta;
                                         runs: no pause, the smallest run the scripted model streams (4 events): CPU per run
              --events-per-run 14        events of each throughput and latency run (at least 4); sets --words and --words-per-delta
              --words 20                 words of the query (the reply is 2 longer);  --words-per-delta 2
              --delay-ms 50              pause before each delta in latency phases
              --apis N --workers N --relays N   the local stack's size (default 1 each)
              --jfr                      record a JFR profile of every JVM of the stack (under the results folder)
              --target URL[,URL…] --key KEY [--project demo] [--kafka HOST:PORT] [--redis URL]   a running stack
              --out bench/results  --label NAME
            """;

    static BenchOptions parse(String[] args) {
        Path home = Path.of(".").toAbsolutePath().normalize();
        Path out = null;
        List<Integer> concurrency = List.of(100);
        Duration duration = Duration.ofSeconds(10);
        Duration warmup = Duration.ofSeconds(3);
        Duration jitWarmup = Duration.ofSeconds(60);
        List<String> modes = List.of("pipeline", "direct", "kafka-raw", "redis-raw", "hops-raw");
        List<String> kinds = KINDS;
        int words = 20;
        int wordsPerDelta = 2;
        long delayMs = 50;
        int apis = 1;
        int workers = 1;
        int relays = 1;
        boolean jfr = false;
        List<URI> targets = List.of();
        String key = null;
        String project = "demo";
        String kafka = null;
        String redis = null;
        String label = null;
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--quick" -> {
                    concurrency = List.of(50);
                    duration = Duration.ofSeconds(5);
                    warmup = Duration.ofSeconds(3);
                    label = label == null ? "quick" : label;
                    continue;
                }
                case "--sweep" -> {
                    concurrency = List.of(1, 100, 1000, 5000);
                    label = label == null ? "sweep" : label;
                    continue;
                }
                case "--jfr" -> {
                    jfr = true;
                    continue;
                }
                case "--home" -> home = Path.of(need(args[i], value)).toAbsolutePath().normalize();
                case "--out" -> out = Path.of(need(args[i], value)).toAbsolutePath().normalize();
                case "--concurrency" -> concurrency = Arrays.stream(need(args[i], value).split(",")).map(v -> positive("--concurrency", v)).toList();
                case "--duration" -> duration = seconds(args[i], value);
                case "--warmup" -> warmup = seconds(args[i], value);
                case "--jit-warmup" -> jitWarmup = seconds(args[i], value);
                case "--modes" -> modes = List.of(need(args[i], value).split(","));
                case "--kinds" -> kinds = List.of(need(args[i], value).split(","));
                case "--words" -> words = positive(args[i], value);
                case "--words-per-delta" -> wordsPerDelta = positive(args[i], value);
                case "--events-per-run" -> {
                    Script.Size size = Script.Size.of(positive(args[i], value));
                    words = size.words();
                    wordsPerDelta = size.wordsPerDelta();
                }
                case "--delay-ms" -> delayMs = Long.parseLong(need(args[i], value));
                case "--apis" -> apis = positive(args[i], value);
                case "--workers" -> workers = positive(args[i], value);
                case "--relays" -> relays = positive(args[i], value);
                case "--target" -> targets = Arrays.stream(need(args[i], value).split(",")).map(URI::create).toList();
                case "--key" -> key = need(args[i], value);
                case "--project" -> project = need(args[i], value);
                case "--kafka" -> kafka = need(args[i], value);
                case "--redis" -> redis = need(args[i], value);
                case "--label" -> label = need(args[i], value);
                default -> throw new IllegalArgumentException("unknown option " + args[i] + "\n" + USAGE);
            }
            i++;
        }
        if (!targets.isEmpty() && key == null) {
            throw new IllegalArgumentException("--target needs --key (a secret key of --project)");
        }
        List<String> unknown = new ArrayList<>(modes);
        unknown.removeAll(List.of("pipeline", "direct", "kafka-raw", "redis-raw", "hops-raw", "share-raw"));
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("unknown modes " + unknown);
        }
        if (!KINDS.containsAll(kinds)) {
            throw new IllegalArgumentException("kinds are " + String.join(", ", KINDS) + ", not " + kinds);
        }
        return new BenchOptions(home, out != null ? out : home.resolve("bench").resolve("results"), concurrency, duration, warmup,
                jitWarmup, modes, kinds, words, wordsPerDelta, delayMs, apis, workers, relays, jfr, targets, key, project, kafka, redis,
                label == null ? "run" : label, redacted(args));
    }

    /** These options without the secret key, for results that are committed. */
    BenchOptions forTheRecord() {
        return new BenchOptions(home, out, concurrency, duration, warmup, jitWarmup, modes, kinds, words, wordsPerDelta, delayMs, apis,
                workers, relays, jfr, targets, key == null ? null : REDACTED, project, kafka, redis, label, args);
    }

    private static List<String> redacted(String[] args) {
        List<String> kept = new ArrayList<>(List.of(args));
        for (int i = 1; i < kept.size(); i++) {
            if (kept.get(i - 1).equals("--key")) {
                kept.set(i, REDACTED);
            }
        }
        return List.copyOf(kept);
    }

    private static String need(String option, @Nullable String value) {
        if (value == null) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return value;
    }

    private static int positive(String option, @Nullable String value) {
        int n = Integer.parseInt(need(option, value).strip());
        if (n < 1) {
            throw new IllegalArgumentException(option + " needs a positive number");
        }
        return n;
    }

    private static Duration seconds(String option, @Nullable String value) {
        String v = need(option, value).strip();
        return v.endsWith("ms") ? Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)))
                : Duration.ofMillis((long) (Double.parseDouble(v.replaceAll("s$", "")) * 1000));
    }
}
