package io.agentrun.bench;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Options of {@code ./agentrun bench}, as {@link BenchCommand} reads them.
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

    static final String REDACTED = "<redacted>";

    /** These options without the secret key, for results that are committed. */
    BenchOptions forTheRecord() {
        return new BenchOptions(home, out, concurrency, duration, warmup, jitWarmup, modes, kinds, words, wordsPerDelta, delayMs, apis,
                workers, relays, jfr, targets, key == null ? null : REDACTED, project, kafka, redis, label, args);
    }
}
