package io.agentrun.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.agentrun.model.json.JsonCodec;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine.ParameterException;

class BenchOptionsTest {

    @ParameterizedTest
    @ValueSource(ints = {4, 5, 6, 7, 14, 15, 104})
    void eventsPerRunGivesAScriptOfThatManyEvents(int events) throws InterruptedException {
        BenchOptions options = BenchCommand.parse(new String[] {"--events-per-run", Integer.toString(events)});
        Script script = new Script(new JsonCodec(), options.words(), options.wordsPerDelta());
        List<String> played = new ArrayList<>();
        script.play("bench", "run_x", "thr_x", 0, played::add);
        assertThat(played).hasSize(events);
        assertThat(script.eventsPerRun()).isEqualTo(events);
    }

    @Test
    void theDefaultRunIsFourteenEvents() {
        BenchOptions options = BenchCommand.parse(new String[0]);
        assertThat(Script.Size.of(14)).isEqualTo(new Script.Size(options.words(), options.wordsPerDelta()));
    }

    @Test
    void fewerThanTheScriptedModelsSmallestRunIsRefused() {
        assertThatThrownBy(() -> BenchCommand.parse(new String[] {"--events-per-run", "2"}))
                .isInstanceOf(ParameterException.class).hasMessageContaining("smallest run has 4 events");
    }

    @Test
    void defaultsMeasureEveryKindAndHopsRaw() {
        BenchOptions options = BenchCommand.parse(new String[0]);
        assertThat(options.kinds()).containsExactly("throughput", "latency", "runs");
        assertThat(options.modes()).containsExactly("pipeline", "direct", "kafka-raw", "redis-raw", "hops-raw");
    }

    @Test
    void anUnknownKindIsRefused() {
        assertThatThrownBy(() -> BenchCommand.parse(new String[] {"--kinds", "throughput,burst"}))
                .isInstanceOf(ParameterException.class).hasMessageContaining("kinds are");
    }

    @Test
    void quickAndSweepArePresetsThatAnOptionGivenWithThemOverrides() {
        assertThat(BenchCommand.parse("--quick")).extracting(BenchOptions::concurrency, BenchOptions::duration, BenchOptions::label)
                .containsExactly(List.of(50), Duration.ofSeconds(5), "quick");
        assertThat(BenchCommand.parse("--sweep").concurrency()).containsExactly(1, 100, 1000, 5000);
        assertThat(BenchCommand.parse("--concurrency", "7", "--quick", "--label", "x"))
                .extracting(BenchOptions::concurrency, BenchOptions::label).containsExactly(List.of(7), "x");
        assertThat(BenchCommand.parse()).extracting(BenchOptions::concurrency, BenchOptions::duration, BenchOptions::label)
                .containsExactly(List.of(100), Duration.ofSeconds(10), "run");
    }

    @Test
    void quickAndSweepTogetherAreRefused() {
        assertThatThrownBy(() -> BenchCommand.parse("--quick", "--sweep")).isInstanceOf(ParameterException.class)
                .hasMessageContaining("mutually exclusive");
    }

    @ParameterizedTest
    @CsvSource({"10s, 10000", "1.5s, 1500", "500ms, 500", "1m, 60000", "0s, 0", "3, 3000"})
    void durationsTakeTheFormsTheDocsQuote(String text, long millis) {
        assertThat(BenchCommand.parse("--duration", text, "--warmup", text, "--jit-warmup", text))
                .extracting(BenchOptions::duration, BenchOptions::warmup, BenchOptions::jitWarmup)
                .containsOnly(Duration.ofMillis(millis));
    }

    @Test
    void listsAreCommaSeparated() {
        BenchOptions options = BenchCommand.parse("--concurrency", "1,50", "--modes", "pipeline,share-raw", "--kinds", "runs",
                "--target", "http://a:8080,http://b:8080", "--key", "k");
        assertThat(options.concurrency()).containsExactly(1, 50);
        assertThat(options.modes()).containsExactly("pipeline", "share-raw");
        assertThat(options.kinds()).containsExactly("runs");
        assertThat(options.targets()).extracting(Object::toString).containsExactly("http://a:8080", "http://b:8080");
    }

    @Test
    void aKeyGivenEitherWayIsRedactedFromTheRecordedCommandLine() {
        assertThat(BenchCommand.parse("--target", "http://a:8080", "--key", "ar_sk_1").args()).containsExactly("--target", "http://a:8080", "--key", "<redacted>");
        assertThat(BenchCommand.parse("--target", "http://a:8080", "--key=ar_sk_1").args()).containsExactly("--target", "http://a:8080", "--key=<redacted>");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "--apis|0|Invalid value for option '--apis': needs a positive number, not '0'",
            "--concurrency|10,x|Invalid value for option '--concurrency' (N): needs a positive number, not 'x'",
            "--duration|ten|Invalid value for option '--duration': 'ten' is not a duration like 10s, 500ms or 1m",
            "--events-per-run|3|the scripted model's smallest run has 4 events, not 3",
            "--modes|pipeline,burst|unknown modes [burst]",
            "--target|http://a:8080|--target needs --key",
            "--delay-ms|soon|Invalid value for option '--delay-ms'"})
    void aBadValueIsRefusedWithPicocliMessageAndTheUsage(String option, String value, String message) {
        StringWriter err = new StringWriter();
        int status = BenchCommand.line().setErr(new PrintWriter(err)).execute(option, value);

        assertThat(status).isEqualTo(2);
        assertThat(err.toString()).startsWith("bench: ").contains(message).contains("Usage: ./agentrun bench [--quick | --sweep] [options]");
    }

    @Test
    void anUnknownOptionIsRefusedWithTheNearestOnesAndTheUsage() {
        StringWriter err = new StringWriter();
        int status = BenchCommand.line().setErr(new PrintWriter(err)).execute("--concurency");

        assertThat(status).isEqualTo(2);
        assertThat(err.toString()).contains("Unknown option: '--concurency'", "Possible solutions: --concurrency", "Usage: ./agentrun bench");
    }

    @Test
    void theHelpNamesEveryOption() {
        StringWriter out = new StringWriter();
        int status = BenchCommand.line().setOut(new PrintWriter(out)).execute("--help");

        assertThat(status).isZero();
        assertThat(out.toString()).contains("--quick", "--sweep", "--concurrency=N", "--duration=DURATION", "--warmup=DURATION",
                "--jit-warmup=DURATION", "--modes=MODE", "--kinds=KIND", "--events-per-run=N", "--words=N", "--words-per-delta=N",
                "--delay-ms=MS", "--apis=N", "--workers=N", "--relays=N", "--jfr", "--target=URL", "--key=KEY", "--project=ID",
                "--kafka=HOST:PORT", "--redis=URL", "--out=DIR", "--label=NAME", "--help", "share-raw", "DURATION: 10s", "--quick and --sweep set --concurrency")
                .doesNotContain("--home");
    }
}
