package io.agentrun.ops.cli;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.ops.tail.LiveTail;
import io.agentrun.platform.kafka.ClusterAdmin;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.replay.ReplayFormat;
import io.agentrun.replay.ReplayQuery;
import io.agentrun.replay.ThreadEventReader;
import io.agentrun.state.rebuild.StateRebuilder;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code ./agentrun replay | tail | rebuild-state}: operators' commands over the event topic and Redis.
 * Output (events) goes to stdout, diagnostics to stderr; exit status 0 on success, 1 on failure, 2 on a
 * usage error.
 */
public final class OpsCli {

    static final String USAGE = """
            usage:
              ./agentrun replay --thread ID [--run ID] [--from TIME] [--to TIME] [--format jsonl|sse|pretty] [--follow]
              ./agentrun tail [--project P] [--agent A] [--type T] [--from TIME] [--format pretty|jsonl|sse]
              ./agentrun rebuild-state [--from TIME] [--force] [--relay-group NAME]
            common: [--bootstrap-servers HOST:PORT] [--redis-url URL] [--events-topic NAME]
                    (default: KAFKA_BOOTSTRAP_SERVERS, REDIS_URL, AGENTRUN_KAFKA_EVENTS_TOPIC, else the services' defaults)
            TIME: ISO-8601 (2026-11-22T10:00:00Z) or a span back from now (15m, 2h, 3d)""";
    private static final Set<String> COMMON = Set.of("--bootstrap-servers", "--redis-url", "--events-topic");

    private final PrintStream out;
    private final PrintStream err;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private volatile boolean following;

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

    public int run(String[] args) {
        if (args.length == 0) {
            err.println(USAGE);
            return 2;
        }
        String[] rest = Arrays.copyOfRange(args, 1, args.length);
        try {
            return switch (args[0]) {
                case "replay" -> replay(CliArgs.parse(rest, with("--thread", "--run", "--from", "--to", "--format"), Set.of("--follow")));
                case "tail" -> tail(CliArgs.parse(rest, with("--project", "--agent", "--type", "--from", "--format"), Set.of()));
                case "rebuild-state" -> rebuild(CliArgs.parse(rest, with("--from", "--relay-group"), Set.of("--force")));
                default -> throw new IllegalArgumentException("unknown command " + args[0]);
            };
        } catch (IllegalArgumentException e) {
            err.println("agentrun: " + e.getMessage());
            err.println(USAGE);
            return 2;
        } catch (RuntimeException e) {
            err.println("agentrun " + args[0] + " failed: " + e.getMessage());
            return 1;
        }
    }

    private static Set<String> with(String... options) {
        Set<String> all = new java.util.HashSet<>(COMMON);
        all.addAll(List.of(options));
        return all;
    }

    private int replay(CliArgs args) {
        String thread = args.value("--thread");
        if (thread == null) {
            throw new IllegalArgumentException("replay needs --thread");
        }
        ReplayQuery query = new ReplayQuery(thread, args.value("--run"), args.time("--from"), args.time("--to"), args.flag("--follow"));
        ReplayFormat format = ReplayFormat.parse(args.value("--format", "jsonl"));
        OpsSettings settings = OpsSettings.from(args);
        try (RedisConnections redis = redisOrNull(settings)) {
            ThreadEventReader reader = new ThreadEventReader(settings.readers(), redis, new JsonCodec());
            ThreadEventReader.Replay replay = reader.replay(query, event -> {
                out.print(format.render(event));
                if (query.follow()) {
                    out.flush();
                }
            }, running::get);
            out.flush();
            if (replay.deleted() != null) {
                // Who and when, never what: the events stay in the topic until retention, but are not shown.
                err.println("agentrun replay: thread " + thread + " (project " + replay.deleted().projectId() + ") was deleted at "
                        + replay.deleted().deletedAt() + " by " + replay.deleted().deletedBy() + "; its events are not shown");
                return 0;
            }
            if (replay.events() == 0) {
                err.println("agentrun replay: no events of thread " + thread + (query.runId() == null ? "" : " run " + query.runId())
                        + " in " + settings.kafka().eventsTopic() + " (retention " + settings.kafka().eventRetention() + ")");
                return 1;
            }
            return 0;
        }
    }

    /** The run index is an accelerator: without Redis, replay seeks by time. */
    private @org.jspecify.annotations.Nullable RedisConnections redisOrNull(OpsSettings settings) {
        try {
            return settings.openRedis();
        } catch (RuntimeException e) {
            err.println("agentrun: Redis unavailable (" + e.getMessage() + "); seeking by time");
            return null;
        }
    }

    private int tail(CliArgs args) {
        ReplayFormat format = ReplayFormat.parse(args.value("--format", "pretty"));
        LiveTail.Filter filter = new LiveTail.Filter(args.value("--project"), args.value("--agent"), args.value("--type"));
        OpsSettings settings = OpsSettings.from(args);
        new LiveTail(settings.readers(), new JsonCodec()).follow(filter, args.time("--from"), event -> {
            out.print(format.render(event));
            out.flush();
        }, running::get, () -> following = true);
        return 0;
    }

    private int rebuild(CliArgs args) {
        OpsSettings settings = OpsSettings.from(args);
        int relays = activeRelays(settings);
        if (relays > 0 && !args.flag("--force")) {
            err.println("agentrun rebuild-state: " + relays + " relay(s) are consuming in group " + settings.kafka().relayGroup()
                    + "; stop them first (a relay applying new events before the rebuild reaches older ones of the same"
                    + " thread would hide those), or pass --force when no new runs can arrive meanwhile");
            return 1;
        }
        try (RedisConnections redis = settings.openRedis();
                var connection = redis.newConnection()) {
            StateRebuilder.Result result = new StateRebuilder(settings.readers(), connection, new JsonCodec(), settings.state())
                    .rebuild(args.time("--from"), line -> err.println("  " + line));
            out.printf("rebuilt %d threads and %d runs from %d events (%d records, %d skipped) on %d partitions in %d ms;"
                            + " %d thread deletions applied%n",
                    result.threads(), result.runs(), result.events(), result.records(), result.skipped(), result.partitions(),
                    result.took().toMillis(), result.deletedThreads());
            out.println("not in the event topic, so not rebuilt: projects, agents, API keys — restart the api nodes to re-run their bootstrap");
            return 0;
        }
    }

    private static int activeRelays(OpsSettings settings) {
        try (ClusterAdmin cluster = settings.openAdmin()) {
            return cluster.consumerGroupMembers(settings.kafka().relayGroup(), Duration.ofSeconds(15));
        }
    }
}
