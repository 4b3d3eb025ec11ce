package io.agentrun.ops.cli;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.ops.tail.LiveTail;
import io.agentrun.replay.ReplayFormat;
import java.time.Instant;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code ./agentrun tail}: live events across threads, filtered. */
@Command(name = "tail", sortOptions = false, sortSynopsis = false, usageHelpAutoWidth = true,
        description = "Prints events across threads as they are written (Ctrl-C ends).", footer = {"", PointInTime.FORMS})
final class TailCommand implements Callable<Integer> {

    /** Help only: the commands have no version of their own to print ({@code -V} would print an empty line). */
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
    boolean helpRequested;

    private final OpsCli cli;

    @Option(names = "--project", paramLabel = "P", description = "only this project's events")
    private @Nullable String project;

    @Option(names = "--agent", paramLabel = "A", description = "only this agent's events")
    private @Nullable String agent;

    @Option(names = "--type", paramLabel = "T", description = "only events of this type (run_end, error, …)")
    private @Nullable String type;

    @Option(names = "--from", paramLabel = "TIME", converter = PointInTime.class, description = "start back then (default: now)")
    private @Nullable Instant from;

    @Option(names = "--format", paramLabel = "pretty|jsonl|sse", converter = FormatName.class, defaultValue = "pretty",
            description = "(default: ${DEFAULT-VALUE})")
    private ReplayFormat format = ReplayFormat.PRETTY;

    @Mixin
    private ConnectionOptions connection = new ConnectionOptions();

    TailCommand(OpsCli cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() {
        LiveTail.Filter filter = new LiveTail.Filter(project, agent, type);
        OpsSettings settings = OpsSettings.from(connection, null);
        new LiveTail(settings.readers(), new JsonCodec()).follow(filter, from, event -> {
            cli.out.print(format.render(event));
            cli.out.flush();
        }, cli::running, cli::startedFollowing);
        return 0;
    }
}
