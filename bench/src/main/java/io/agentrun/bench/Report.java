package io.agentrun.bench;

import io.agentrun.model.json.JsonCodec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The results of one bench: JSON for the record, a table and ratios for people, and the summary line.
 *
 * @param redisAppendFsync the Redis durability the phases ran with, as {@code CONFIG GET} reported it
 */
record Report(Conditions conditions, BenchOptions options, String redisAppendFsync, List<Phase> phases) {

    private static final List<String> BASELINES = List.of("direct", "kafka-raw", "redis-raw", "hops-raw");
    /** hops-raw is tight when it moves at least this share of what its two hops, run one after the other, could. */
    static final double TIGHT = 0.5;

    Path write(JsonCodec codec, Path dir, String stamp) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(stamp + "-" + options.label() + ".json");
        Files.writeString(file, json(codec));
        return file;
    }

    String json(JsonCodec codec) {
        return codec.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(this);
    }

    String table() {
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT,
                "%-9s %-10s %6s %9s %7s | %-27s | %-27s | %-9s | %s%n", "mode", "kind", "conc", "events/s", "runs/s",
                "ttfe ms p50/p95/p99/max", "delivery ms p50/p95/p99/max", "start p50", "errors lost dup stuck"));
        for (Phase phase : phases) {
            out.append(line(phase)).append('\n').append(processes(phase)).append('\n').append(cpu(phase)).append('\n')
                    .append(redisCommands(phase)).append('\n');
        }
        return out.toString();
    }

    static String line(Phase phase) {
        Phase.Figures f = phase.figures();
        double offered = phase.offeredEventsPerSecond();
        return String.format(Locale.ROOT, "%-9s %-10s %6d %9.0f %7.1f | %-27s | %-27s | %9.1f | %d %d %d %d", phase.mode(), phase.kind(),
                phase.concurrency(), f.eventsPerSecond(), f.runsPerSecond(), ms(f.ttfe()), ms(f.delivery()),
                f.ttfe().p50() - f.runStartDelivery().p50(),
                f.errors() + f.failedRuns(), f.missing(), f.duplicated(), f.stuck())
                + (offered > 0 ? String.format(Locale.ROOT, "  delivered/offered %.0f/%.0f = %.2f", f.eventsPerSecond(), offered,
                        f.eventsPerSecond() / offered) : "")
                + (f.errorMessages().isEmpty() ? "" : "  " + f.errorMessages());
    }

    /** CPU (cores, and µs per event and per run) and peak resident memory of each process during the phase. */
    static String processes(Phase phase) {
        return phase.processes().stream().map(u -> usage(phase, u))
                .collect(Collectors.joining(", ", "    ", "; load " + phase.loadAverage()));
    }

    private static String usage(Phase phase, ProcessStats.Usage usage) {
        CpuCost.Share share = share(phase, usage.process());
        return String.format(Locale.ROOT, "%s %.2f cpu %s/%s µs/ev/run %.0f MiB", usage.process(), usage.cpuCores(),
                micros(share.microsPerEvent()), micros(share.microsPerRun()), usage.peakRssMib());
    }

    /** The phase's CPU per event and per run over the processes its mode runs on. */
    static String cpu(Phase phase) {
        return String.format(Locale.ROOT, "    cpu µs/event (%s): %s  /run: %s", phase.cpu().label(phase.mode()),
                micros(phase.cpu().microsPerEvent()), micros(phase.cpu().microsPerRun()));
    }

    /** Redis commands per run in the phase (scripts' own calls included), the most frequent eight by name. */
    static String redisCommands(Phase phase) {
        Map<String, Double> perRun = phase.redisCommandsPerRun();
        if (perRun.isEmpty()) {
            return "    redis commands/run: n/a";
        }
        return String.format(Locale.ROOT, "    redis commands/run: %.1f (%s)", RedisCommandCount.total(perRun),
                perRun.entrySet().stream().limit(8).map(e -> String.format(Locale.ROOT, "%s %.1f", e.getKey(), e.getValue()))
                        .collect(Collectors.joining(", ")));
    }

    private static CpuCost.Share share(Phase phase, String process) {
        return phase.cpu().processes().stream().filter(s -> s.process().equals(process)).findFirst()
                .orElse(new CpuCost.Share(process, null, null));
    }

    private static String micros(@Nullable Double micros) {
        return micros == null ? "n/a" : String.format(Locale.ROOT, "%.0f", micros);
    }

    /** pipeline ÷ baseline for each figure, per point. */
    String ratios() {
        StringBuilder out = new StringBuilder("pipeline ÷ baseline (events/s higher is better; latencies lower is better)\n");
        for (Phase pipeline : phases.stream().filter(p -> p.mode().equals("pipeline")).toList()) {
            for (String baseline : BASELINES) {
                find(baseline, pipeline.kind(), pipeline.concurrency()).ifPresent(base -> out.append(String.format(Locale.ROOT,
                        "  %-10s %5d streams vs %-9s  events/s %.2fx  runs/s %.2fx  ttfe p50 %.2fx p99 %.2fx  delivery p50 %.2fx p99 %.2fx%n",
                        pipeline.kind(), pipeline.concurrency(), baseline,
                        ratio(pipeline.figures().eventsPerSecond(), base.figures().eventsPerSecond()),
                        ratio(pipeline.figures().runsPerSecond(), base.figures().runsPerSecond()),
                        ratio(pipeline.figures().ttfe().p50(), base.figures().ttfe().p50()),
                        ratio(pipeline.figures().ttfe().p99(), base.figures().ttfe().p99()),
                        ratio(pipeline.figures().delivery().p50(), base.figures().delivery().p50()),
                        ratio(pipeline.figures().delivery().p99(), base.figures().delivery().p99()))));
            }
        }
        List<String> checks = phases.stream().filter(p -> p.mode().equals("hops-raw")).flatMap(p -> tightness(p).stream()).toList();
        if (!checks.isEmpty()) {
            out.append("hops-raw against its two hops alone, H = 1 / (1/kafka-raw + 1/redis-raw) events/s\n");
            checks.forEach(check -> out.append(check).append('\n'));
        }
        return out.toString();
    }

    /**
     * hops-raw against the harmonic combination of its two hops measured alone, H = 1 / (1/kafka-raw + 1/redis-raw):
     * the events/s of a program that spent each hop's whole cost per event, one after the other. A hops-raw below
     * half of it does more than the two hops need, and is no limit of the design. Paced phases are bound by the
     * offered load (every mode near the same events/s), so their ratio says nothing.
     */
    Optional<String> tightness(Phase hops) {
        Optional<Phase> kafka = find("kafka-raw", hops.kind(), hops.concurrency());
        Optional<Phase> redis = find("redis-raw", hops.kind(), hops.concurrency());
        if (kafka.isEmpty() || redis.isEmpty()) {
            return Optional.empty();
        }
        double k = kafka.get().figures().eventsPerSecond();
        double r = redis.get().figures().eventsPerSecond();
        double h = harmonic(k, r);
        double ratio = ratio(hops.figures().eventsPerSecond(), h);
        return Optional.of(String.format(Locale.ROOT, "  %-10s %5d streams hops-raw %.0f events/s = %.2fx H(kafka-raw %.0f, redis-raw %.0f) = %.0f: %s",
                hops.kind(), hops.concurrency(), hops.figures().eventsPerSecond(), ratio, k, r, h,
                hops.delayMs() > 0 ? "paced, not a check" : ratio >= TIGHT ? "tight (>= " + TIGHT + "x)" : "NOT tight (< " + TIGHT + "x)"));
    }

    static double harmonic(double a, double b) {
        return a <= 0 || b <= 0 ? 0 : a * b / (a + b); // = 1 / (1/a + 1/b)
    }

    /**
     * One line, last: events/s against each baseline from the throughput phase, latencies from the latency
     * phase, CPU per event over the pipeline's processes from the throughput phase and per run from the runs phase
     * (the fewest events a run has), at the highest concurrency measured; lost and duplicated over every pipeline phase.
     */
    String summary() {
        int top = phases.stream().mapToInt(Phase::concurrency).max().orElse(0);
        Optional<Phase> throughput = find("pipeline", "throughput", top);
        Optional<Phase> latency = find("pipeline", "latency", top).or(() -> throughput);
        long lost = phases.stream().filter(p -> p.mode().equals("pipeline")).mapToLong(p -> p.figures().missing()).sum();
        long duplicated = phases.stream().filter(p -> p.mode().equals("pipeline")).mapToLong(p -> p.figures().duplicated()).sum();
        long errors = phases.stream().filter(p -> p.mode().equals("pipeline"))
                .mapToLong(p -> p.figures().errors() + p.figures().failedRuns() + p.figures().stuck()).sum();
        String vs = throughput.map(t -> BASELINES.stream()
                .flatMap(b -> find(b, "throughput", top).stream()
                        .map(base -> String.format(Locale.ROOT, "%.2fx %s", ratio(t.figures().eventsPerSecond(), base.figures().eventsPerSecond()), b)))
                .collect(Collectors.joining(", ")) + " events/s").orElse("no throughput phase");
        String latencies = latency.map(l -> String.format(Locale.ROOT, "ttfe p50 %.1f ms%s; delivery p99 %.1f ms",
                l.figures().ttfe().p50(),
                find("direct", l.kind(), top).map(d -> String.format(Locale.ROOT, " (direct %.1f ms)", d.figures().ttfe().p50())).orElse(""),
                l.figures().delivery().p99())).orElse("no pipeline phase");
        return String.format(Locale.ROOT, "pipeline %s; %s at %d streams;%s%s lost %d, duplicated %d, errors %d",
                vs, latencies, top, cpuSummary(throughput, find("pipeline", "runs", top)), pacedSummary(top), lost, duplicated, errors);
    }

    /** The paced phase: delivered events/s against what it offered and against direct's, and its CPU per event. */
    private String pacedSummary(int top) {
        return find("pipeline", "latency", top).filter(p -> p.offeredEventsPerSecond() > 0).map(paced -> String.format(Locale.ROOT,
                " paced %.0f of %.0f offered events/s (%.2fx)%s, cpu %s µs/event;", paced.figures().eventsPerSecond(),
                paced.offeredEventsPerSecond(), ratio(paced.figures().eventsPerSecond(), paced.offeredEventsPerSecond()),
                find("direct", "latency", top).map(d -> String.format(Locale.ROOT, " = %.2fx direct",
                        ratio(paced.figures().eventsPerSecond(), d.figures().eventsPerSecond()))).orElse(""),
                micros(paced.cpu().microsPerEvent()))).orElse("");
    }

    private static String cpuSummary(Optional<Phase> throughput, Optional<Phase> runs) {
        Optional<String> perEvent = throughput.map(t -> t.cpu().microsPerEvent()).map(m -> micros(m) + " µs/event");
        Optional<String> perRun = runs.map(r -> micros(r.cpu().microsPerRun()) + " µs/run of " + r.eventsPerRun() + " events");
        List<String> parts = java.util.stream.Stream.of(perEvent, perRun).flatMap(Optional::stream).toList();
        Optional<String> redis = runs.filter(r -> !r.redisCommandsPerRun().isEmpty())
                .map(r -> String.format(Locale.ROOT, " redis %.1f commands/run;", RedisCommandCount.total(r.redisCommandsPerRun())));
        return (parts.isEmpty() ? "" : " cpu (pipeline processes) " + String.join(", ", parts) + ";") + redis.orElse("");
    }

    Optional<Phase> find(String mode, String kind, int concurrency) {
        return phases.stream().filter(p -> p.mode().equals(mode) && p.kind().equals(kind) && p.concurrency() == concurrency).findFirst();
    }

    private static double ratio(double pipeline, double baseline) {
        return baseline == 0 ? Double.NaN : pipeline / baseline;
    }

    private static String ms(Samples.Percentiles p) {
        return String.format(Locale.ROOT, "%.1f/%.1f/%.1f/%.0f", p.p50(), p.p95(), p.p99(), p.max());
    }
}
