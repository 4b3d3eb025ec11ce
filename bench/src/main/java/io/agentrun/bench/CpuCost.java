package io.agentrun.bench;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a phase cost in CPU per event and per run: each process's CPU time over the whole phase (ramp, window and
 * tail, as {@link ProcessStats} samples it) divided by every event, and every run, the clients received in that
 * time — so the work of runs in flight at the window's edges is neither lost nor counted twice. Idle processes
 * (an idle stack uses ~0.09 cores) add their share too.
 *
 * @param summed          the processes the mode runs on, whose shares make the sums: for the pipeline its services
 *                        and stores (api, worker, relay, Kafka, Redis: not the bench, which plays the clients); for a
 *                        baseline the bench's own JVM (where it runs, clients included) and the stores it uses
 * @param microsPerEvent  CPU µs per event over {@code summed}; null when no event arrived
 * @param microsPerRun    CPU µs per run over {@code summed}; null when no run ended
 */
record CpuCost(List<Share> processes, List<String> summed, @Nullable Double microsPerEvent, @Nullable Double microsPerRun) {

    /** One process's CPU µs per event and per run. */
    record Share(String process, @Nullable Double microsPerEvent, @Nullable Double microsPerRun) {
    }

    static CpuCost of(String mode, List<ProcessStats.Usage> usages, long events, long runs) {
        List<Share> shares = usages.stream().map(u -> new Share(u.process(), per(u.cpuMicros(), events), per(u.cpuMicros(), runs))).toList();
        List<ProcessStats.Usage> mine = usages.stream().filter(u -> runsOn(mode, u.process())).toList();
        long micros = mine.stream().mapToLong(ProcessStats.Usage::cpuMicros).sum();
        return new CpuCost(shares, mine.stream().map(ProcessStats.Usage::process).toList(),
                mine.isEmpty() ? null : per(micros, events), mine.isEmpty() ? null : per(micros, runs));
    }

    /** Whether {@code process} (api-1, worker-2, kafka, redis, bench, …) does the work of {@code mode}. */
    static boolean runsOn(String mode, String process) {
        String role = process.replaceFirst("-\\d+$", "");
        return switch (mode) {
            case "pipeline" -> !role.equals("bench");
            case "direct" -> role.equals("bench");
            case "kafka-raw", "share-raw" -> role.equals("bench") || role.equals("kafka");
            case "redis-raw" -> role.equals("bench") || role.equals("redis");
            case "hops-raw" -> role.equals("bench") || role.equals("kafka") || role.equals("redis");
            default -> throw new IllegalArgumentException(mode);
        };
    }

    /** {@code pipeline processes} for the pipeline, the processes' names for a baseline ({@code kafka+bench}, in the order processes are listed). */
    String label(String mode) {
        return mode.equals("pipeline") ? "pipeline processes" : String.join("+", summed);
    }

    private static @Nullable Double per(long micros, long count) {
        return count == 0 ? null : Math.round(micros * 10.0 / count) / 10.0;
    }
}
