package io.agentrun.ops.cli;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.ClusterAdmin;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.state.rebuild.StateRebuilder;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code ./agentrun rebuild-state}: Redis's threads and runs again from the event topic, idempotently. */
@Command(name = "rebuild-state", sortOptions = false, sortSynopsis = false, usageHelpAutoWidth = true,
        description = "Applies the event topic to Redis again through the relay's own scripts (threads, runs, deletions).",
        footer = {"", PointInTime.FORMS})
final class RebuildStateCommand implements Callable<Integer> {

    /** Help only: the commands have no version of their own to print ({@code -V} would print an empty line). */
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
    boolean helpRequested;

    private final OpsCli cli;

    @Option(names = "--from", paramLabel = "TIME", converter = PointInTime.class,
            description = "events written from then on (default: everything the topic keeps)")
    private @Nullable Instant from;

    @Option(names = "--force", description = "rebuild while relays consume (only when no new runs can arrive meanwhile)")
    private boolean force;

    @Option(names = "--relay-group", paramLabel = "NAME", description = "the relays' consumer group (default: the services' setting)")
    private @Nullable String relayGroup;

    @Mixin
    private ConnectionOptions connection = new ConnectionOptions();

    RebuildStateCommand(OpsCli cli) {
        this.cli = cli;
    }

    @Override
    public Integer call() {
        OpsSettings settings = OpsSettings.from(connection, relayGroup);
        int relays = activeRelays(settings);
        if (relays > 0 && !force) {
            cli.err.println("agentrun rebuild-state: " + relays + " relay(s) are consuming in group " + settings.kafka().relayGroup()
                    + "; stop them first (a relay applying new events before the rebuild reaches older ones of the same"
                    + " thread would hide those), or pass --force when no new runs can arrive meanwhile");
            return 1;
        }
        try (RedisConnections redis = settings.openRedis();
                var redisConnection = redis.newConnection()) {
            StateRebuilder.Result result = new StateRebuilder(settings.readers(), redisConnection, new JsonCodec(), settings.state())
                    .rebuild(from, line -> cli.err.println("  " + line));
            cli.out.printf("rebuilt %d threads and %d runs from %d events (%d records, %d skipped) on %d partitions in %d ms;"
                            + " %d thread deletions applied%n",
                    result.threads(), result.runs(), result.events(), result.records(), result.skipped(), result.partitions(),
                    result.took().toMillis(), result.deletedThreads());
            cli.out.println("not in the event topic, so not rebuilt: projects, agents, API keys — restart the api nodes to re-run their bootstrap");
            return 0;
        }
    }

    private static int activeRelays(OpsSettings settings) {
        try (ClusterAdmin cluster = settings.openAdmin()) {
            return cluster.consumerGroupMembers(settings.kafka().relayGroup(), Duration.ofSeconds(15));
        }
    }
}
