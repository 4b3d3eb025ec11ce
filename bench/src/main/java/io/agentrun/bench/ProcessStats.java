package io.agentrun.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * CPU and resident memory of named processes from {@code /proc}: CPU as the share of one core used
 * between {@link #start} and {@link #stop}, memory as the peak {@code VmRSS} seen by a sampler meanwhile.
 */
final class ProcessStats implements AutoCloseable {

    /** Clock ticks per second of {@code /proc/<pid>/stat}; 100 on every Linux this runs on. */
    private static final double TICKS_PER_SECOND = 100.0;

    private final Map<String, Long> pids;
    private final Map<String, Long> startTicks = new LinkedHashMap<>();
    private final Map<String, Long> peakRssKb = new java.util.concurrent.ConcurrentHashMap<>();
    private final Thread sampler;
    private final long startNanos = System.nanoTime();
    private volatile boolean running = true;

    /**
     * What one process spent during a phase.
     *
     * @param cpuCores   CPU time over the phase's length: cores used, rounded for reading
     * @param cpuMicros  CPU time (user + system) in µs, to the clock tick (10 ms): per-event figures divide it
     */
    record Usage(String process, long pid, double cpuCores, long cpuMicros, double peakRssMib) {
    }

    private ProcessStats(Map<String, Long> pids) {
        this.pids = pids;
        pids.forEach((name, pid) -> startTicks.put(name, cpuTicks(pid)));
        sampler = Thread.ofPlatform().daemon().name("bench-rss").start(this::sample);
    }

    static ProcessStats start(Map<String, Long> pids) {
        return new ProcessStats(pids);
    }

    List<Usage> stop() {
        running = false;
        sampleOnce();
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        List<Usage> usages = new ArrayList<>();
        pids.forEach((name, pid) -> {
            long ticks = cpuTicks(pid) - startTicks.get(name);
            double cores = ticks / TICKS_PER_SECOND / seconds;
            usages.add(new Usage(name, pid, Math.round(cores * 100) / 100.0, Math.round(ticks * 1e6 / TICKS_PER_SECOND),
                    Math.round(peakRssKb.getOrDefault(name, 0L) / 102.4) / 10.0));
        });
        return usages;
    }

    @Override
    public void close() {
        running = false;
    }

    private void sample() {
        while (running) {
            sampleOnce();
            try {
                Thread.sleep(250); // a sampling period, not a wait for a condition
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void sampleOnce() {
        pids.forEach((name, pid) -> peakRssKb.merge(name, rssKb(pid), Math::max));
    }

    /** utime + stime, fields 14 and 15 of /proc/pid/stat (after the parenthesised command name). */
    static long cpuTicks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    static long rssKb(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return 0;
    }
}
