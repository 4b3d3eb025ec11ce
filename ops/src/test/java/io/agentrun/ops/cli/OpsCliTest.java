package io.agentrun.ops.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What the command line accepts and refuses, before any command connects to Kafka or Redis. */
class OpsCliTest {

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "replay; --thread=ID --run=ID --from=TIME --to=TIME --format=jsonl|records|sse|pretty --follow",
            "tail; --project=P --agent=A --type=T --from=TIME --format=pretty|jsonl|sse",
            "rebuild-state; --from=TIME --force --relay-group=NAME"})
    void eachCommandsHelpNamesItsOptionsAndTheConnectionOnes(String command, String options) {
        Cli cli = run(command, "--help");

        assertThat(cli.status()).isZero();
        assertThat(cli.out()).contains("Usage: ./agentrun " + command, "--bootstrap-servers=HOST:PORT", "--redis-url=URL",
                "--events-topic=NAME", "--help", "TIME: ISO-8601").contains(options.split(" "));
    }

    @Test
    void theCommandsHelpListsThem() {
        Cli cli = run("--help");

        assertThat(cli.status()).isZero();
        assertThat(cli.out()).contains("Usage: ./agentrun [-h] replay | tail | rebuild-state", "replay", "tail", "rebuild-state");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "replay --format xml --thread thr_x|Invalid value for option '--format': unknown format 'xml' (jsonl, records, sse or pretty)|Usage: ./agentrun replay",
            "replay --run run_x|Missing required option: '--thread=ID'|Usage: ./agentrun replay",
            "replay --thread thr_x --from yesterday|Invalid value for option '--from': takes an ISO-8601 time|Usage: ./agentrun replay",
            "tail --follow|Unknown option: '--follow'|Usage: ./agentrun tail",
            "rebuild-state --forse|Possible solutions: --force|Usage: ./agentrun rebuild-state",
            "rewind|Unmatched argument at index 0: 'rewind'|Usage: ./agentrun [-h]"})
    void badInputIsAUsageErrorWithTheCommandsUsage(String args, String message, String usage) {
        Cli cli = run(args.split(" "));

        assertThat(cli.status()).isEqualTo(2);
        assertThat(cli.err()).startsWith("agentrun: ").contains(message, usage);
    }

    @Test
    void noCommandAsksWhichOne() {
        Cli cli = run();

        assertThat(cli.status()).isEqualTo(2);
        assertThat(cli.err()).contains("which command? replay, tail or rebuild-state", "Usage: ./agentrun");
    }

    @Test
    void aTimeIsAnInstantOrASpanBackFromNow() {
        assertThat(new PointInTime().convert("2026-11-22T10:00:00Z")).isEqualTo(Instant.parse("2026-11-22T10:00:00Z"));
        assertThat(new PointInTime().convert("2h")).isBetween(Instant.now().minus(Duration.ofHours(2)).minusSeconds(5),
                Instant.now().minus(Duration.ofHours(2)));
    }

    private static Cli run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = new OpsCli(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)).run(args);
        return new Cli(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private record Cli(int status, String out, String err) {
    }
}
