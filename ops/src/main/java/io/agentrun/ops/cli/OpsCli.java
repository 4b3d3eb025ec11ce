package io.agentrun.ops.cli;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * {@code ./agentrun replay | tail | rebuild-state}: operators' commands over the event topic and Redis.
 * Output (events) goes to stdout, diagnostics to stderr; exit status 0 on success, 1 on failure, 2 on a
 * usage error.
 */
@Command(name = "./agentrun", usageHelpAutoWidth = true,
        synopsisSubcommandLabel = "replay | tail | rebuild-state",
        description = "Operators' commands over the event topic and Redis; ./agentrun COMMAND --help for each one's options.",
        footer = {"", "Each command takes [--bootstrap-servers HOST:PORT] [--redis-url URL] [--events-topic NAME]",
                "(default: KAFKA_BOOTSTRAP_SERVERS, REDIS_URL, AGENTRUN_KAFKA_EVENTS_TOPIC, else the services' defaults).",
                PointInTime.FORMS})
public final class OpsCli implements Callable<Integer> {

    /** Help only: the commands have no version of their own to print ({@code -V} would print an empty line). */
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
    boolean helpRequested;

    final PrintStream out;
    final PrintStream err;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private volatile boolean following;

    // picocli replaces it with this command's own when it builds the command line
    @Spec
    private CommandSpec spec = CommandSpec.create();

    public OpsCli(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        // Before any logger exists: stdout carries data, so logs go to stderr (warnings only).
        System.setProperty("logback.configurationFile", "io/agentrun/ops/cli/logback.xml");
        OpsCli cli = new OpsCli(new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8), System.err);
        Thread main = Thread.currentThread();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            cli.stop();
            try {
                main.join(Duration.ofSeconds(5).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        int status = cli.run(args);
        cli.out.flush();
        System.exit(status);
    }

    /** Whether a {@code tail} has fixed where it starts: events written from now on will be shown. */
    public boolean following() {
        return following;
    }

    /** Ends a {@code --follow} or {@code tail} at its next poll. */
    public void stop() {
        running.set(false);
    }

    /** Runs one command line ({@code replay --thread …}); its exit status. */
    public int run(String[] args) {
        return new CommandLine(this)
                .addSubcommand(new ReplayCommand(this))
                .addSubcommand(new TailCommand(this))
                .addSubcommand(new RebuildStateCommand(this))
                .setOut(new PrintWriter(out, true))
                .setErr(new PrintWriter(err, true))
                .setParameterExceptionHandler(OpsCli::refuse)
                .setExecutionExceptionHandler(OpsCli::failed)
                .execute(args);
    }

    /** Without a command: which one, and the usage. */
    @Override
    public Integer call() {
        throw new ParameterException(spec.commandLine(), "which command? replay, tail or rebuild-state");
    }

    boolean running() {
        return running.get();
    }

    void startedFollowing() {
        following = true;
    }

    /** picocli's message, its guess at a misspelt option, then the command's usage. */
    private static int refuse(ParameterException e, String[] args) {
        PrintWriter err = e.getCommandLine().getErr();
        err.println("agentrun: " + e.getMessage());
        UnmatchedArgumentException.printSuggestions(e, err);
        e.getCommandLine().usage(err);
        return e.getCommandLine().getCommandSpec().exitCodeOnInvalidInput();
    }

    private static int failed(Exception e, CommandLine command, ParseResult parsed) {
        PrintWriter err = command.getErr();
        if (e instanceof IllegalArgumentException) {
            // A value only using it checks (a malformed --redis-url, say) is still the caller's to fix.
            err.println("agentrun: " + e.getMessage());
            command.usage(err);
            return command.getCommandSpec().exitCodeOnInvalidInput();
        }
        err.println("agentrun " + command.getCommandName() + " failed: " + e.getMessage());
        return command.getCommandSpec().exitCodeOnExecutionException();
    }
}
