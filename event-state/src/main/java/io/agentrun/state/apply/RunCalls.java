package io.agentrun.state.apply;

import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.store.RunLibrary;
import io.agentrun.platform.store.StateSettings;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The run-script calls of a relay batch ({@code apply_run_events}): one per run, or on a single primary one
 * {@code apply_runs_events} for many runs; either way a future per run with that run's reply. What the replies mean is
 * {@link EventApplier}'s.
 */
final class RunCalls {

    /** Most events one {@code apply_runs_events} call carries: one call holds Redis from its other clients for its whole run. */
    private static final int EVENTS_PER_CALL = 100;

    private final RedisClusterAsyncCommands<String, String> redis;
    private final JsonCodec codec;
    private final StateSettings settings;

    RunCalls(RedisClusterAsyncCommands<String, String> redis, JsonCodec codec, StateSettings settings) {
        this.redis = redis;
        this.codec = codec;
        this.settings = settings;
    }

    CompletableFuture<List<Object>> callForOne(List<RelayedEvent> events) {
        return RunLibrary.APPLY_RUN_EVENTS.callList(redis, runKeys(events.get(0).runId()), runArgs(events).toArray(String[]::new));
    }

    /**
     * The run calls of a batch on a single primary: one call for many runs (at most {@link #EVENTS_PER_CALL} events, so
     * one call does not hold Redis from its other clients for long), each run's reply as its own future.
     */
    List<CompletableFuture<List<Object>>> callForAll(List<List<RelayedEvent>> runs) {
        List<CompletableFuture<List<Object>>> replies = new ArrayList<>(runs.size());
        int from = 0;
        while (from < runs.size()) {
            List<String> keys = new ArrayList<>();
            List<String> args = new ArrayList<>();
            int to = from;
            int events = 0;
            while (to < runs.size() && (to == from || events + runs.get(to).size() <= EVENTS_PER_CALL)) {
                List<RelayedEvent> run = runs.get(to++);
                events += run.size();
                keys.addAll(List.of(runKeys(run.get(0).runId())));
                List<String> runArgs = runArgs(run);
                args.add(Integer.toString(runArgs.size()));
                args.addAll(runArgs);
            }
            CompletableFuture<List<Object>> call = RunLibrary.APPLY_RUNS_EVENTS.callList(redis, keys.toArray(String[]::new),
                    args.toArray(String[]::new));
            for (int i = 0; i < to - from; i++) {
                int index = i;
                replies.add(call.thenApply(answers -> runReply(answers.get(index))));
            }
            from = to;
        }
        return replies;
    }

    /** One run's part of {@code apply_runs_events}' answer: its reply, or the text of the error Redis refused it with. */
    @SuppressWarnings("unchecked")
    private static List<Object> runReply(Object answer) {
        if (answer instanceof List<?> reply) {
            return (List<Object>) reply;
        }
        throw new CompletionException(new RedisCommandExecutionException(String.valueOf(answer).replaceFirst("^refused: ", "")));
    }

    private static String[] runKeys(String runId) {
        return new String[] {RedisKeys.run(runId), RedisKeys.runEvents(runId), RedisKeys.runWatchers(runId)};
    }

    private List<String> runArgs(List<RelayedEvent> events) {
        List<String> args = new ArrayList<>(6 + events.size() * 12);
        args.add(Long.toString(settings.resumeBufferMaxEvents()));
        args.add(Long.toString(settings.resumeBufferTtl().toMillis()));
        args.add(Long.toString(settings.runRetention().toMillis()));
        RunEvent start = events.stream().map(RelayedEvent::event)
                .filter(e -> e != null && e.data() instanceof EventData.RunStart).findFirst().orElse(null);
        args.add(start == null ? "" : start.projectId());
        args.add(start == null ? "" : start.agentId());
        args.add(start == null || start.threadId() == null ? "" : start.threadId());
        for (RelayedEvent event : events) {
            addRunArgs(args, event);
        }
        return args;
    }

    private void addRunArgs(List<String> args, RelayedEvent relayed) {
        RunEvent event = relayed.event();
        String[] detail = event == null ? new String[] {"", "", "", ""} : switch (event.data()) {
            case EventData.RunStart start -> new String[] {Integer.toString(start.attempt()), "", "", ""};
            case EventData.RunError error -> new String[] {error.code(), error.message(), "", ""};
            case EventData.RunEnd end -> new String[] {end.status().wireName(), end.output(), codec.write(end.usage()),
                    end.outputJson() != null ? codec.write(end.outputJson()) : ""};
            case EventData.ApprovalRequired approval -> new String[] {approval.toolCallId(), codec.write(approval.withoutCheckpoint()),
                    approval.checkpoint() == null ? "" : codec.write(approval.checkpoint()), Long.toString(approval.deadline().toEpochMilli())};
            case EventData.ApprovalDecided decided -> new String[] {decided.decision(), decided.reason(), decided.decidedBy(), ""};
            default -> new String[] {"", "", "", ""};
        };
        args.add(Long.toString(relayed.seq()));
        args.add(relayed.json());
        args.add(relayed.type().wireName());
        args.add(Integer.toString(relayed.partition()));
        args.add(Long.toString(relayed.offset()));
        args.add(event == null ? "" : event.createdAt().toString());
        args.add(detail[0]);
        args.add(detail[1]);
        args.add(Integer.toString(relayed.epoch()));
        args.add(relayed.traceparent());
        args.add(detail[2]);
        args.add(detail[3]);
    }
}
