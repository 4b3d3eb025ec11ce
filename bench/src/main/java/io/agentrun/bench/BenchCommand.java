package io.agentrun.bench;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import io.agentrun.infra.cli.PositiveNumber;
import io.agentrun.infra.cli.UsageErrors;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code ./agentrun bench}'s command line: its options, typed and checked, and the help picocli generates from them.
 * {@code --quick} and {@code --sweep} are presets: an option given with them wins over theirs.
 */
@Command(name = "./agentrun bench", customSynopsis = "./agentrun bench [--quick | --sweep] [options]",
        sortOptions = false, usageHelpAutoWidth = true,
        description = "Drives concurrent streaming runs of the scripted model through a local stack (or --target) and through"
                + " the baselines a user would build instead, and writes what it measured to --out.",
        footer = {"", "--quick and --sweep set --concurrency, --duration and --label; an option given with them wins.",
                "DURATION: 10s, 1.5s, 500ms, 1m or plain seconds.",
                "share-raw holds each command with RENEW for the run's length with -Dbench.share-hold=true (the first design);"
                        + " try settings with -Dbench.share.NAME=VALUE, and consumer settings of kafka-raw and hops-raw with"
                        + " -Dbench.kafka.NAME=VALUE."})
final class BenchCommand implements Callable<Integer> {

    /** Help only: the commands have no version of their own to print ({@code -V} would print an empty line). */
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
    boolean helpRequested;

    static final List<String> KINDS = List.of("throughput", "latency", "runs");
    static final List<String> MODES = List.of("pipeline", "direct", "kafka-raw", "redis-raw", "hops-raw", "share-raw");

    // picocli replaces it with this command's own when it builds the command line
    @Spec
    private CommandSpec spec = CommandSpec.create();

    @ArgGroup(exclusive = true)
    private @Nullable Preset preset;

    @Option(names = "--concurrency", paramLabel = "N", split = ",", converter = PositiveNumber.class,
            description = "concurrent streams, one point after the other, e.g. 10,100 (default: 100)")
    private @Nullable List<Integer> concurrency;

    @Option(names = "--duration", paramLabel = "DURATION", converter = ShortDuration.class,
            description = "the measured window of each phase, after the ramp (clients start 2 ms apart, at most 5 s) (default: 10s)")
    private @Nullable Duration duration;

    @Option(names = "--warmup", paramLabel = "DURATION", converter = ShortDuration.class, defaultValue = "3s",
            description = "unmeasured runs before each phase (20 clients) (default: ${DEFAULT-VALUE})")
    private Duration warmup = Duration.ofSeconds(3);

    @Option(names = "--jit-warmup", paramLabel = "DURATION", converter = ShortDuration.class, defaultValue = "60s",
            description = {"load before the first phase (pipeline: all of it, each baseline a quarter), so the JVMs have"
                    + " compiled their hot code; 0s measures cold JVMs (default: ${DEFAULT-VALUE})"})
    private Duration jitWarmup = Duration.ofSeconds(60);

    @Option(names = "--modes", paramLabel = "MODE", split = ",", defaultValue = "pipeline,direct,kafka-raw,redis-raw,hops-raw",
            description = {"of pipeline, direct, kafka-raw, redis-raw, hops-raw, share-raw (default: ${DEFAULT-VALUE});",
                    "hops-raw: HTTP → Kafka → one consumer → Redis stream + pub/sub → SSE, no per-run state;",
                    "share-raw: the command hop alone (a share consumer accepting each command on pick-up)"})
    private List<String> modes = List.of();

    @Option(names = "--kinds", paramLabel = "KIND", split = ",", defaultValue = "throughput,latency,runs",
            description = {"of throughput (no pause between deltas), latency (--delay-ms before each delta), runs (no pause,"
                    + " the smallest run the scripted model streams, 4 events: CPU per run) (default: ${DEFAULT-VALUE})"})
    private List<String> kinds = List.of();

    @Option(names = "--events-per-run", paramLabel = "N", converter = EventsPerRun.class,
            description = "events of each throughput and latency run, at least 4; sets --words and --words-per-delta (default: 14)")
    private Script.@Nullable Size size;

    @Option(names = "--words", paramLabel = "N", converter = PositiveNumber.class,
            description = "words of the query; the reply is 2 longer (default: 20)")
    private @Nullable Integer words;

    @Option(names = "--words-per-delta", paramLabel = "N", converter = PositiveNumber.class, description = "words in each delta (default: 2)")
    private @Nullable Integer wordsPerDelta;

    @Option(names = "--delay-ms", paramLabel = "MS", defaultValue = "50",
            description = "pause before each delta in latency phases, like a model's pace (default: ${DEFAULT-VALUE})")
    private long delayMs;

    @Option(names = "--apis", paramLabel = "N", converter = PositiveNumber.class, defaultValue = "1",
            description = "api nodes of the local stack (default: ${DEFAULT-VALUE})")
    private int apis;

    @Option(names = "--workers", paramLabel = "N", converter = PositiveNumber.class, defaultValue = "1",
            description = "run workers of the local stack (default: ${DEFAULT-VALUE})")
    private int workers;

    @Option(names = "--relays", paramLabel = "N", converter = PositiveNumber.class, defaultValue = "1",
            description = "event relays of the local stack (default: ${DEFAULT-VALUE})")
    private int relays;

    @Option(names = "--jfr", description = "record a JFR profile of every JVM of the stack (under the results folder)")
    private boolean jfr;

    @Option(names = "--target", paramLabel = "URL", split = ",", description = "api nodes of a running stack instead of a local one; needs --key")
    private List<URI> targets = new ArrayList<>();

    @Option(names = "--key", paramLabel = "KEY", description = "a secret key of --project (never written to the results)")
    private @Nullable String key;

    @Option(names = "--project", paramLabel = "ID", defaultValue = "demo", description = "the running stack's project (default: ${DEFAULT-VALUE})")
    private String project = "demo";

    @Option(names = "--kafka", paramLabel = "HOST:PORT", description = "the running stack's Kafka")
    private @Nullable String kafka;

    @Option(names = "--redis", paramLabel = "URL", description = "the running stack's Redis")
    private @Nullable String redis;

    @Option(names = "--out", paramLabel = "DIR", description = "where the results go (default: bench/results)")
    private @Nullable Path out;

    @Option(names = "--label", paramLabel = "NAME", description = "ends the results' file name (default: quick, sweep or run)")
    private @Nullable String label;

    // ./agentrun passes the checkout
    @Option(names = "--home", hidden = true)
    private Path home = Path.of(".");

    /** {@code --quick} or {@code --sweep}, not both. */
    static final class Preset {
        @Option(names = "--quick", required = true,
                description = "one point, 50 streams, 5 s phases (about 5 minutes with the stack start and JIT warm-up)")
        boolean quick;

        @Option(names = "--sweep", required = true, description = "concurrency 1, 100, 1000, 5000 (or --concurrency A,B,…)")
        boolean sweep;
    }

    /** A command line that runs the bench, prints its help or refuses bad input (exit status 2). */
    static CommandLine line() {
        return new CommandLine(new BenchCommand()).setParameterExceptionHandler(UsageErrors.printedAs("bench"));
    }

    /** The options a command line gives, checked, without running anything. */
    static BenchOptions parse(String... args) {
        CommandLine line = line();
        line.parseArgs(args);
        return line.<BenchCommand>getCommand().options();
    }

    @Override
    public Integer call() throws Exception {
        Bench.measure(options());
        return 0;
    }

    BenchOptions options() {
        check();
        Path checkout = home.toAbsolutePath().normalize();
        boolean quick = preset != null && preset.quick;
        boolean sweep = preset != null && preset.sweep;
        Script.Size script = size != null ? size : Script.Size.of(14);
        return new BenchOptions(checkout, out != null ? out.toAbsolutePath().normalize() : checkout.resolve("bench").resolve("results"),
                concurrency != null ? List.copyOf(concurrency) : quick ? List.of(50) : sweep ? List.of(1, 100, 1000, 5000) : List.of(100),
                duration != null ? duration : Duration.ofSeconds(quick ? 5 : 10), warmup, jitWarmup, List.copyOf(modes), List.copyOf(kinds),
                words != null ? words : script.words(), wordsPerDelta != null ? wordsPerDelta : script.wordsPerDelta(), delayMs,
                apis, workers, relays, jfr, List.copyOf(targets), key, project, kafka, redis,
                label != null ? label : quick ? "quick" : sweep ? "sweep" : "run", redacted(spec.commandLine().getParseResult().originalArgs()));
    }

    private void check() {
        if (!targets.isEmpty() && key == null) {
            throw refusal("--target needs --key (a secret key of --project)");
        }
        if (size != null && (words != null || wordsPerDelta != null)) {
            throw refusal("--events-per-run sets --words and --words-per-delta: give one or the others");
        }
        List<String> unknown = new ArrayList<>(modes);
        unknown.removeAll(MODES);
        if (!unknown.isEmpty()) {
            throw refusal("unknown modes " + unknown + "; modes are " + String.join(", ", MODES));
        }
        if (!KINDS.containsAll(kinds)) {
            throw refusal("kinds are " + String.join(", ", KINDS) + ", not " + kinds);
        }
    }

    private ParameterException refusal(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    /** The command line for the record: results are committed, so a key's value is not in them. */
    static List<String> redacted(List<String> args) {
        List<String> kept = new ArrayList<>(args);
        for (int i = 0; i < kept.size(); i++) {
            if (kept.get(i).startsWith("--key=")) {
                kept.set(i, "--key=" + BenchOptions.REDACTED);
            } else if (i > 0 && kept.get(i - 1).equals("--key")) {
                kept.set(i, BenchOptions.REDACTED);
            }
        }
        return List.copyOf(kept);
    }



    /** {@code 10s}, {@code 1.5s}, {@code 500ms}, {@code 1m}, {@code 1h}, or plain seconds: the forms results and docs quote. */
    static final class ShortDuration implements ITypeConverter<Duration> {
        private static final Pattern FORM = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)?");

        @Override
        public Duration convert(String value) {
            Matcher form = FORM.matcher(value.strip());
            if (!form.matches()) {
                throw new TypeConversionException("'" + value + "' is not a duration like 10s, 500ms or 1m");
            }
            double millisEach = switch (form.group(2) == null ? "s" : form.group(2)) {
                case "ms" -> 1;
                case "m" -> 60_000;
                case "h" -> 3_600_000;
                default -> 1_000;
            };
            return Duration.ofMillis(Math.round(Double.parseDouble(form.group(1)) * millisEach));
        }
    }

    /** The script's size for that many events per run; the scripted model's smallest run has 4. */
    static final class EventsPerRun implements ITypeConverter<Script.Size> {
        @Override
        public Script.Size convert(String value) {
            int events = new PositiveNumber().convert(value);
            try {
                return Script.Size.of(events);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
