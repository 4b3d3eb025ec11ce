package io.agentrun.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * Under what conditions a bench ran: a shared 2-core machine gives noisy figures, so say so in the results; and
 * which code it measured.
 */
record Conditions(Instant startedAt, int cpus, String loadAverage, String java, long memoryMib, String options, GitState git) {

    static Conditions now(BenchOptions options) {
        return new Conditions(Instant.now(), Runtime.getRuntime().availableProcessors(), currentLoadAverage(),
                System.getProperty("java.vm.name") + " " + Runtime.version(), totalMemoryMib(), options.toString(),
                GitState.of(options.home()));
    }

    static String currentLoadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip();
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static long totalMemoryMib() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/meminfo"));
            return Long.parseLong(lines.getFirst().replaceAll("[^0-9]", "")) / 1024;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
