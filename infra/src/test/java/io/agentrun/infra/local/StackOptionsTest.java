package io.agentrun.infra.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

class StackOptionsTest {

    @Test
    void aRedisClusterIsAFlagAmongTheOtherOptions() {
        StackOptions options = parse("--apis", "2", "--redis-cluster", "--kafka-brokers", "3");

        assertThat(options.redisCluster()).isTrue();
        assertThat(options.apis()).isEqualTo(2);
        assertThat(options.kafkaBrokers()).isEqualTo(3);
    }

    @Test
    void oneRedisServerAndOneBrokerByDefault() {
        StackOptions options = parse();

        assertThat(options.redisCluster()).isFalse();
        assertThat(options.kafkaBrokers()).isEqualTo(1);
        assertThat(options.workers()).isEqualTo(1);
    }

    @Test
    void theStateDirIsUnderTheCheckoutUnlessGiven() {
        assertThat(parse("--home", "/tmp/checkout").stateDir()).hasToString("/tmp/checkout/.agentrun");
        assertThat(parse("--home", "/tmp/checkout", "--state-dir", "/tmp/state").stateDir()).hasToString("/tmp/state");
    }

    @Test
    void anUnknownOptionNamesItselfAndTheUsage() {
        Run run = execute("--redis-clusters");

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).contains("Unknown option: '--redis-clusters'").contains("--redis-cluster ").contains("Usage: ./agentrun local");
        assertThatThrownBy(() -> parse("--apis", "0")).isInstanceOf(ParameterException.class).hasMessageContaining("positive number");
    }

    @ParameterizedTest
    @ValueSource(strings = {"--apis", "--workers", "--relays", "--kafka-brokers", "--api-port", "--kafka-port"})
    void aCountOrPortBelowOneOrNotANumberIsRefusedWithTheUsage(String option) {
        assertThat(execute(option, "0").err()).contains("Invalid value for option '" + option + "': needs a positive number, not '0'")
                .contains("Usage: ./agentrun local");
        assertThat(execute(option, "two").status()).isEqualTo(2);
    }

    @Test
    void thePortOptionsWinOverTheEnvironment() {
        assertThat(parse("--api-port", "9100", "--kafka-port", "9200")).extracting(StackOptions::apiPort, StackOptions::kafkaPort)
                .containsExactly(9100, 9200);
    }

    @Test
    void theHelpNamesEveryOptionButTheOneTheScriptPasses() {
        Run run = execute("--help");

        assertThat(run.status()).isZero();
        assertThat(run.out()).contains("Usage: ./agentrun local", "--apis=N", "--workers=N", "--relays=N", "--kafka-brokers=N",
                "--redis-cluster", "--api-port=P", "--kafka-port=P", "--state-dir=DIR", "--help").doesNotContain("--home");
    }

    private static StackOptions parse(String... args) {
        CommandLine line = StackCommand.line();
        line.parseArgs(args);
        return line.<StackCommand>getCommand().options();
    }

    private static Run execute(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = StackCommand.line().setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
        return new Run(status, out.toString(), err.toString());
    }

    private record Run(int status, String out, String err) {
    }
}
