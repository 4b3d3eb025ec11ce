package io.agentrun.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.model.json.JsonCodec;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class ReportTest {

    private static final String[] ARGS = {"--home", "/work/x", "--target", "http://host:8080", "--key", "ar_sk_secret",
            "--concurrency", "50", "--label", "t"};

    private final JsonCodec codec = new JsonCodec();

    @Test
    void theJsonSaysWhichCommitRanWhetherTheTreeWasDirtyAndHowTheBenchWasInvoked() {
        BenchOptions options = BenchCommand.parse(ARGS).forTheRecord();
        Conditions conditions = new Conditions(Instant.EPOCH, 2, "1.00", "java", 1024, options.toString(),
                new GitState("8d51656c0ffee", true, List.of("?? bench/results/new.json")));
        JsonNode json = codec.mapper().readTree(new Report(conditions, options, "{appendfsync=everysec}", List.of()).json(codec));

        assertThat(json.at("/conditions/git/commit").asString()).isEqualTo("8d51656c0ffee");
        assertThat(json.at("/conditions/git/dirty").asBoolean()).isTrue();
        assertThat(json.at("/conditions/git/changes/0").asString()).isEqualTo("?? bench/results/new.json");
        assertThat(json.at("/options/concurrency/0").asInt()).isEqualTo(50);
        assertThat(json.at("/options/label").asString()).isEqualTo("t");
        assertThat(json.at("/options/args")).hasSize(ARGS.length);
        assertThat(json.at("/options/args/2").asString()).isEqualTo("--target");
        assertThat(json.at("/redis_append_fsync").asString()).isEqualTo("{appendfsync=everysec}");
    }

    @Test
    void theKeyIsInNoRecord() {
        BenchOptions options = BenchCommand.parse(ARGS);
        assertThat(options.key()).isEqualTo("ar_sk_secret");
        BenchOptions recorded = options.forTheRecord();
        Conditions conditions = new Conditions(Instant.EPOCH, 2, "1.00", "java", 1024, recorded.toString(),
                new GitState("c", false, List.of()));
        assertThat(new Report(conditions, recorded, "x", List.of()).json(codec)).doesNotContain("ar_sk_secret").contains("<redacted>");
    }

    @Test
    void harmonicCombinationOfTwoHops() {
        assertThat(Report.harmonic(100_000, 100_000)).isEqualTo(50_000.0);
        assertThat(Report.harmonic(200_000, 50_000)).isEqualTo(40_000.0);
        assertThat(Report.harmonic(0, 50_000)).isZero();
    }

    @Test
    void hopsRawIsTightFromHalfTheHarmonicOfItsHops() {
        Report report = report(phase("kafka-raw", 0, 200_000), phase("redis-raw", 0, 50_000), phase("hops-raw", 0, 20_000));
        assertThat(report.tightness(report.phases().get(2))).hasValueSatisfying(line -> assertThat(line)
                .contains("hops-raw 20000 events/s = 0.50x H(kafka-raw 200000, redis-raw 50000) = 40000: tight (>= 0.5x)"));
        Report slow = report(phase("kafka-raw", 0, 200_000), phase("redis-raw", 0, 50_000), phase("hops-raw", 0, 19_999));
        assertThat(slow.tightness(slow.phases().get(2))).hasValueSatisfying(line -> assertThat(line).contains("NOT tight"));
        assertThat(slow.ratios()).contains("NOT tight");
    }

    @Test
    void pacedPhasesAreNoCheckOfTightness() {
        Report report = report(phase("kafka-raw", 50, 1_000), phase("redis-raw", 50, 1_000), phase("hops-raw", 50, 1_000));
        assertThat(report.tightness(report.phases().get(2))).hasValueSatisfying(line -> assertThat(line).endsWith("paced, not a check"));
    }

    @Test
    void noTightnessWithoutBothHops() {
        Report report = report(phase("kafka-raw", 0, 1_000), phase("hops-raw", 0, 1_000));
        assertThat(report.tightness(report.phases().get(1))).isEmpty();
    }

    @Test
    void theSummaryLineComparesThePipelineWithHopsRawToo() {
        Report report = report(phase("pipeline", 0, 5_000), phase("direct", 0, 100_000), phase("hops-raw", 0, 25_000));
        assertThat(report.summary()).startsWith("pipeline 0.05x direct, 0.20x hops-raw events/s");
        assertThat(report.ratios()).contains("vs hops-raw   events/s 0.20x");
    }

    @Test
    void theSummaryLineGivesThePipelinesCpuPerEventAndPerShortestRun() {
        List<ProcessStats.Usage> usages = List.of(new ProcessStats.Usage("api-1", 1, 0, 600_000, 0),
                new ProcessStats.Usage("kafka", 2, 0, 200_000, 0), new ProcessStats.Usage("bench", 3, 0, 900_000, 0));
        Phase throughput = Phase.of("pipeline", "throughput", 50, 0, 14, figures(1_000, 1_000, 100), usages, "1", Map.of());
        Phase runs = Phase.of("pipeline", "runs", 50, 0, 4, figures(400, 400, 100), usages, "1", Map.of());
        assertThat(report(throughput, runs).summary())
                .contains("at 50 streams; cpu (pipeline processes) 800 µs/event, 8000 µs/run of 4 events; lost 0");
    }

    @Test
    void aPacedPhaseSaysWhatItDeliveredOfWhatItOffered() {
        // 14 events a run, 11 of them deltas each after 50 ms: a stream asks 14 / 0.55 s = 25.5 events/s, 50 streams 1,273
        Phase paced = phase("pipeline", 50, 1_200);
        assertThat(paced.offeredEventsPerSecond()).isCloseTo(1_272.7, org.assertj.core.data.Offset.offset(0.1));
        assertThat(phase("pipeline", 0, 1_200).offeredEventsPerSecond()).as("unpaced: asks for all it gets").isZero();
        assertThat(Report.line(paced)).endsWith("delivered/offered 1200/1273 = 0.94");
        assertThat(report(paced, phase("direct", 50, 1_250)).summary())
                .contains("paced 1200 of 1273 offered events/s (0.94x) = 0.96x direct, cpu n/a µs/event;");
    }

    @Test
    void redisCommandsPerRunAreTheCountersDifferenceOverTheRunsMostFrequentFirst() {
        Map<String, Double> perRun = RedisCommandCount.perRun(Map.of("hset", 100L, "evalsha", 50L, "get", 7L),
                Map.of("hset", 500L, "evalsha", 250L, "get", 7L, "fcall", 100L), 100);
        assertThat(perRun).containsExactly(Map.entry("hset", 4.0), Map.entry("evalsha", 2.0), Map.entry("fcall", 1.0));
        Phase runs = Phase.of("pipeline", "runs", 50, 0, 4, figures(400, 400, 100), List.of(), "1", perRun);

        assertThat(Report.redisCommands(runs)).isEqualTo("    redis commands/run: 7.0 (hset 4.0, evalsha 2.0, fcall 1.0)");
        assertThat(report(runs).summary()).contains("redis 7.0 commands/run;");
        assertThat(RedisCommandCount.perRun(Map.of(), Map.of("hset", 5L), 0)).as("no run ended").isEmpty();
    }

    private static Report report(Phase... phases) {
        BenchOptions options = BenchCommand.parse(new String[] {"--concurrency", "50"});
        return new Report(new Conditions(Instant.EPOCH, 2, "1", "java", 1, "", new GitState("c", false, List.of())), options, "x",
                List.of(phases));
    }

    private static Phase phase(String mode, long delayMs, double eventsPerSecond) {
        return Phase.of(mode, delayMs > 0 ? "latency" : "throughput", 50, delayMs, 14, figures(eventsPerSecond, 14, 1), List.of(), "1", Map.of());
    }

    /** A one-second window's figures with no latencies. */
    private static Phase.Figures figures(double eventsPerSecond, long events, long runs) {
        Samples.Percentiles none = Samples.Percentiles.EMPTY;
        return new Phase.Figures(1, runs, events, runs, (long) eventsPerSecond, eventsPerSecond, runs, none, none, none, 0, 0, 0, 0, 0,
                java.util.Map.of());
    }

    @Test
    void theSummaryBlockNamesTheCommit() {
        assertThat(new GitState("8d51656", false, List.of()).describe()).isEqualTo("commit 8d51656, working tree clean");
        assertThat(new GitState("8d51656", true, List.of("M a", "?? b")).describe())
                .isEqualTo("commit 8d51656, working tree dirty (2 changed or untracked paths)");
    }
}
