package io.agentrun.ops.cli;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.replay.ReplayFormat;
import io.agentrun.replay.ReplayQuery;
import io.agentrun.replay.ThreadEventReader;
import java.time.Instant;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code ./agentrun replay}: a thread's events back from the topic, in the order its client saw them. */
@Command(name = "replay", sortOptions = false, sortSynopsis = false, usageHelpAutoWidth = true,
        description = "Prints a thread's events from the event topic (a run's, with --run), as jsonl, records (jsonl with partition and offset), sse or pretty text.",
        footer = {"", PointInTime.FORMS})
final class ReplayCommand implements Callable<Integer> {

    /** Help only: the commands have no version of their own to print ({@code -V} would print an empty line). */
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
    boolean helpRequested;

    private final OpsCli cli;

    @Option(names = "--thread", paramLabel = "ID", required = true, description = "the thread")
    private String thread = "";

    @Option(names = "--run", paramLabel = "ID", description = "only this run of the thread")
    private @Nullable String run;

    @Option(names = "--from", paramLabel = "TIME", converter = PointInTime.class, description = "events written from then on")
    private @Nullable Instant from;

    @Option(names = "--to", paramLabel = "TIME", converter = PointInTime.class, description = "events written until then")
    private @Nullable Instant to;

    @Option(names = "--format", paramLabel = "jsonl|records|sse|pretty", converter = FormatName.class, defaultValue = "jsonl",
            description = "one envelope per line, the SSE bytes the client received, or text to read (default: ${DEFAULT-VALUE})")
    private ReplayFormat format = ReplayFormat.JSONL;

    @Option(names = "--follow", description = "keep printing new events (Ctrl-C ends)")
    private boolean follow;

    @Mixin
    private ConnectionOptions connection = new ConnectionOptions();

    ReplayCommand(OpsCli cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() {
        ReplayQuery query = new ReplayQuery(thread, run, from, to, follow);
        OpsSettings settings = OpsSettings.from(connection, null);
        try (RedisConnections redis = redisOrNull(settings)) {
            ThreadEventReader reader = new ThreadEventReader(settings.readers(), redis, new JsonCodec());
            ThreadEventReader.Replay replay = reader.replay(query, event -> {
                cli.out.print(format.render(event));
                if (query.follow()) {
                    cli.out.flush();
                }
            }, cli::running);
            cli.out.flush();
            return outcome(replay, query, settings);
        }
    }

    private int outcome(ThreadEventReader.Replay replay, ReplayQuery query, OpsSettings settings) {
        if (replay.deleted() != null) {
            // Who and when, never what: the events stay in the topic until retention, but are not shown.
            cli.err.println("agentrun replay: thread " + thread + " (project " + replay.deleted().projectId() + ") was deleted at "
                    + replay.deleted().deletedAt() + " by " + replay.deleted().deletedBy() + "; its events are not shown");
            return 0;
        }
        if (replay.events() == 0) {
            cli.err.println("agentrun replay: no events of thread " + thread + (query.runId() == null ? "" : " run " + query.runId())
                    + " in " + settings.kafka().eventsTopic() + " (retention " + settings.kafka().eventRetention() + ")");
            return 1;
        }
        return 0;
    }

    /** The run index is an accelerator: without Redis, replay seeks by time. */
    private @Nullable RedisConnections redisOrNull(OpsSettings settings) {
        try {
            return settings.openRedis();
        } catch (RuntimeException e) {
            cli.err.println("agentrun: Redis unavailable (" + e.getMessage() + "); seeking by time");
            return null;
        }
    }
}
