package io.agentrun.infra.local;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import io.agentrun.infra.cli.PositiveNumber;
import io.agentrun.infra.cli.UsageErrors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/** {@code ./agentrun local}'s command line: its options, typed and checked, and the help picocli generates from them. */
@Command(name = "./agentrun local", sortOptions = false, sortSynopsis = false, usageHelpAutoWidth = true,
        description = "Starts Kafka, Redis, the api nodes, the workers and the relays on this machine, seeds project demo"
                + " and prints its key; Ctrl-C stops everything.",
        footer = {"", "Environment: REDIS_URL (an existing Redis; several comma-separated URIs for a Redis Cluster),"
                + " AGENTRUN_DEV_API_KEY, AGENTRUN_ADMIN_TOKEN, AGENTRUN_KAFKA_PORT, AGENTRUN_API_PORT."})
final class StackCommand implements Callable<Integer> {

    /** Help only: the commands have no version of their own to print ({@code -V} would print an empty line). */
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
    boolean helpRequested;

    // picocli replaces it with this command's own when it builds the command line
    @Spec
    private CommandSpec spec = CommandSpec.create();

    // ./agentrun passes the checkout; a stack started by a test or the bench passes its own.
    @Option(names = "--home", hidden = true)
    private Path home = Path.of(".");

    @Option(names = "--apis", paramLabel = "N", converter = PositiveNumber.class,
            description = "api nodes, on ports --api-port, --api-port + 1, … (default: ${DEFAULT-VALUE})")
    private int apis = 1;

    @Option(names = "--workers", paramLabel = "N", converter = PositiveNumber.class, description = "run workers (default: ${DEFAULT-VALUE})")
    private int workers = 1;

    @Option(names = "--relays", paramLabel = "N", converter = PositiveNumber.class, description = "event relays (default: ${DEFAULT-VALUE})")
    private int relays = 1;

    @Option(names = "--kafka-brokers", paramLabel = "N", converter = PositiveNumber.class,
            description = "KRaft nodes; with three or more, topics have three replicas and min.insync.replicas=2 (default: ${DEFAULT-VALUE})")
    private int kafkaBrokers = 1;

    @Option(names = "--redis-cluster", description = "a Redis Cluster of three primaries with a replica each instead of one redis-server")
    private boolean redisCluster;

    // Not picocli's ${env:…} default: a blank variable means "not set", as it did before picocli.
    @Option(names = "--api-port", paramLabel = "P", converter = PositiveNumber.class,
            description = "the first api node's port (default: AGENTRUN_API_PORT, else 8080)")
    private @Nullable Integer apiPort;

    @Option(names = "--kafka-port", paramLabel = "P", converter = PositiveNumber.class,
            description = "the first Kafka node's port; node n listens on P + n - 1 (default: AGENTRUN_KAFKA_PORT, else 9092)")
    private @Nullable Integer kafkaPort;

    @Option(names = "--state-dir", paramLabel = "DIR", description = "pids, logs and data (default: .agentrun in the checkout)")
    private @Nullable Path stateDir;

    /** A command line that starts the stack, prints its help or refuses bad input (exit status 2). */
    static CommandLine line() {
        return new CommandLine(new StackCommand()).setParameterExceptionHandler(UsageErrors.printedAs("agentrun"));
    }

    @Override
    public Integer call() throws Exception {
        LocalStack.run(options());
        return 0;
    }

    StackOptions options() {
        Path checkout = home.toAbsolutePath().normalize();
        return new StackOptions(checkout, stateDir != null ? stateDir.toAbsolutePath().normalize() : checkout.resolve(".agentrun"),
                apis, workers, relays, kafkaBrokers, port(kafkaPort, "AGENTRUN_KAFKA_PORT", 9092), port(apiPort, "AGENTRUN_API_PORT", 8080),
                "demo", redisCluster);
    }

    private int port(@Nullable Integer option, String variable, int fallback) {
        String value = System.getenv(variable);
        if (option != null || value == null || value.isBlank()) {
            return option != null ? option : fallback;
        }
        try {
            return new PositiveNumber().convert(value);
        } catch (TypeConversionException e) {
            throw new ParameterException(spec.commandLine(), variable + " " + e.getMessage());
        }
    }


}
