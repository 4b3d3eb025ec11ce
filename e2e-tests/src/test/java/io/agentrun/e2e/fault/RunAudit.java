package io.agentrun.e2e.fault;

import static org.awaitility.Awaitility.await;

import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.ClientView;
import io.agentrun.e2e.fixture.EventTopic;
import io.agentrun.e2e.fixture.ResumingRun;
import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.platform.redis.RedisConnections;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import org.awaitility.core.ConditionTimeoutException;
import tools.jackson.databind.json.JsonMapper;

/** What the fault suites check of each accepted run's transcript, as its client saw it over all its connections. */
final class RunAudit {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private RunAudit() {
    }

    /** Null when the transcript is one undisturbed run's; else what is wrong with it. */
    /** What is wrong with the events an SDK stream yielded (seq 0..n once, in order, one run_end, last), or null. */
    static String sdkStreamProblem(List<RunEvent> events) {
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i).seq() != i) {
                return "event " + i + " has seq " + events.get(i).seq() + " " + events.stream().map(RunEvent::seq).toList();
            }
        }
        if (events.isEmpty() || !(events.getLast().data() instanceof EventData.RunEnd)) {
            return "no run_end last";
        }
        if (events.stream().filter(e -> e.data() instanceof EventData.RunEnd).count() != 1) {
            return "more than one run_end";
        }
        return null;
    }

    static String transcriptProblem(ResumingRun run, ClientView view) {
        if (!run.hasRunEnd()) {
            return "no run_end at the client";
        }
        List<RunEvent> events = view.events();
        List<String> wrong = new ArrayList<>();
        if (view.duplicates() > 0) {
            wrong.add(view.duplicates() + " events seen twice");
        }
        if (view.lost() > 0) {
            wrong.add(view.lost() + " events missing below the last id");
        }
        if (events.getFirst().seq() != 0) {
            wrong.add("first seq " + events.getFirst().seq());
        }
        if (!(events.getLast().data() instanceof EventData.RunEnd end)) {
            wrong.add("last event " + events.getLast().type().wireName());
        } else {
            if (!"completed".equals(end.status().wireName())) {
                wrong.add("run_end " + end.status().wireName());
            }
            String expected = "Echo #" + run.turn() + ": " + run.query;
            if (!expected.equals(view.answer()) || !expected.equals(end.output())) {
                wrong.add("answer '" + view.answer() + "', output '" + end.output() + "', expected '" + expected + "'");
            }
        }
        long ends = events.stream().filter(e -> e.data() instanceof EventData.RunEnd).count();
        if (ends != 1) {
            wrong.add(ends + " run_end events");
        }
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i).seq() != i) {
                wrong.add("event " + i + " has seq " + events.get(i).seq());
                break;
            }
        }
        return wrong.isEmpty() ? null : String.join(", ", wrong);
    }

    static int lastAttempt(ClientView view) {
        return view.events().stream().map(RunEvent::data).filter(d -> d instanceof EventData.RunStart)
                .map(d -> ((EventData.RunStart) d).attempt()).reduce((a, b) -> b).orElse(0);
    }

    static String types(ClientView view) {
        return view.events().stream().map(e -> e.seq() + ":" + e.type().wireName() + "@" + e.epoch()).toList().toString();
    }

    /**
     * What the state rebuilt in Redis says of accepted runs, read afresh through the API: each thread's history holds
     * exactly its one question and the undisturbed answer, and a join from the start replays events 0..n once, ending
     * with that answer's run_end. After a failover that dropped acknowledged writes, this is what comes back from Kafka.
     * A problem names what Redis holds of the run and its thread, so a failure in CI explains itself.
     */
    static List<String> recordProblems(List<ResumingRun> accepted, ApiClient client, RedisConnections redis) {
        // Hundreds of runs, two reads each: 16 at a time rather than one after the other.
        List<String> problems = new CopyOnWriteArrayList<>();
        Semaphore reading = new Semaphore(16);
        try (var readers = Executors.newVirtualThreadPerTaskExecutor()) {
            for (ResumingRun run : accepted) {
                readers.submit(() -> {
                    reading.acquireUninterruptibly();
                    try {
                        problems.addAll(recordProblems(run, client, redis));
                    } catch (RuntimeException | AssertionError e) {
                        problems.add("run " + run.runId + ": its record could not be read: " + e);
                    } finally {
                        reading.release();
                    }
                });
            }
        }
        return List.copyOf(problems);
    }

    /** What is wrong with one accepted run's record: its thread's history and a join from the start. */
    private static List<String> recordProblems(ResumingRun run, ApiClient client, RedisConnections redis) {
        List<String> problems = new ArrayList<>();
        String answer = "Echo #" + run.turn() + ": " + run.query;
        var history = client.get("/api/v1/threads/" + run.threadId + "/messages?limit=100");
        List<String> messages = new ArrayList<>();
        if (history.statusCode() == 200) {
            JSON.readTree(history.body()).get("messages")
                    .forEach(m -> messages.add(m.get("role").asString() + ":" + m.get("content").asString()));
        }
        // a continued thread's history holds its first turn (two messages) before this run's
        List<String> thisRun = messages.subList(Math.max(0, messages.size() - 2), messages.size());
        if (messages.size() != 2 * run.turn() || !thisRun.equals(List.of("user:" + run.query, "assistant:" + answer))) {
            problems.add("run " + run.runId + ": history " + history.statusCode() + " " + messages + "; run " + state(redis, run.runId)
                    + "; thread " + redis.sync().hgetall(RedisKeys.thread(run.threadId)));
        }
        ClientView replay = new ClientView();
        replay.add(client.join(run.threadId, run.runId, null).events());
        List<RunEvent> events = replay.events();
        boolean whole = !events.isEmpty() && replay.duplicates() == 0 && replay.lost() == 0 && events.getFirst().seq() == 0
                && events.getLast().data() instanceof EventData.RunEnd end && answer.equals(end.output())
                && answer.equals(replay.answer());
        if (!whole) {
            problems.add("run " + run.runId + ": a join from the start replays " + types(replay) + " answer '" + replay.answer()
                    + "'; run " + state(redis, run.runId));
        }
        return problems;
    }

    /** Every run hash in the stack's Redis whose status is queued or running (run id → hash without the command). */
    static Map<String, Map<String, String>> unsettledRuns(RedisConnections redis) {
        Map<String, Map<String, String>> found = new TreeMap<>();
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<String> page = redis.sync().scan(cursor, ScanArgs.Builder.matches("ar:run:{*").limit(1000));
            for (String key : page.getKeys()) {
                if (!key.endsWith("}")) {
                    continue; // the run's resume buffer, not its hash
                }
                Map<String, String> state = redis.sync().hgetall(key);
                String status = state.get("status");
                if (Set.of("queued", "running").contains(String.valueOf(status))) {
                    found.put(key.substring("ar:run:{".length(), key.length() - 1), withoutCommand(state));
                }
            }
            cursor = page;
        } while (!cursor.isFinished());
        return found;
    }

    static Map<String, String> state(RedisConnections redis, String runId) {
        return runId == null ? Map.of() : withoutCommand(redis.sync().hgetall(RedisKeys.run(runId)));
    }

    static Map<String, String> withoutCommand(Map<String, String> state) {
        Map<String, String> shown = new HashMap<>(state);
        shown.remove("command");
        return new TreeMap<>(shown);
    }

    /** How the refusals were answered: "status code[ +x-run-id]" → how many. */
    static Map<String, Integer> refusalStatuses(List<ResumingRun> refused) {
        Map<String, Integer> statuses = new TreeMap<>();
        for (ResumingRun run : refused) {
            java.util.regex.Matcher code = java.util.regex.Pattern.compile("\"code\":\"([^\"]+)\"").matcher(String.valueOf(run.refusal));
            statuses.merge(run.status + " " + (code.find() ? code.group(1) : "?") + (run.runId == null ? "" : " +x-run-id"), 1, Integer::sum);
        }
        return statuses;
    }

    /**
     * A problem for each refused run that executed anyway: a refusal that named a run id must leave no event in the
     * topic and no state but a {@code not_queued} tombstone.
     */
    static List<String> refusedButExecuted(List<ResumingRun> refused, RedisConnections redis, Map<String, List<RunEvent>> topic) {
        List<String> problems = new ArrayList<>();
        for (ResumingRun run : refused) {
            if (run.runId == null) {
                continue;
            }
            Map<String, String> state = redis.sync().hgetall(io.agentrun.model.naming.RedisKeys.run(run.runId));
            List<RunEvent> written = topic.getOrDefault(run.runId, List.of());
            boolean tombstone = state.isEmpty() || ("failed".equals(state.get("status")) && "not_queued".equals(state.get("error_code")));
            if (!written.isEmpty() || !tombstone) {
                problems.add("refused run " + run.runId + " (HTTP " + run.status + ") executed or is not a tombstone: "
                        + written.size() + " events in the topic " + written.stream().map(e -> e.type().wireName()).toList()
                        + ", state " + withoutCommand(state) + "; " + run);
            }
        }
        return problems;
    }

    /**
     * What became of a load's clients once they settled.
     *
     * @param settledAt   when every client was done (or given up on)
     * @param problems    every broken promise, described; empty when all were kept
     * @param clean       accepted runs whose transcript is an undisturbed run's
     * @param retried     accepted runs that took more than one attempt
     * @param endStatuses run_end statuses of the accepted runs → how many
     */
    record Audit(long settledAt, List<String> problems, List<ResumingRun> accepted, List<ResumingRun> refused,
            List<ResumingRun> unanswered, long lost, long duplicated, int clean, int retried, Map<String, Integer> endStatuses) {
    }

    /**
     * Waits (up to {@code settle} each) for every client to be done and for no run to be left queued or running,
     * then checks the promises: an accepted run's client has run_end once, events 0..n once and the undisturbed
     * answer; a refused run never executed (nothing in the event topic, a tombstone in Redis).
     */
    static Audit settleAndAudit(List<ResumingRun> runs, RedisConnections redis, String kafkaBootstrap, Duration settle) {
        return settleAndAudit(runs, redis, kafkaBootstrap, settle, settle);
    }

    /** @param settled how long after the clients are done a run hash (any, accepted by a client or not) may stay unsettled */
    static Audit settleAndAudit(List<ResumingRun> runs, RedisConnections redis, String kafkaBootstrap, Duration settle, Duration settled) {
        List<String> problems = new ArrayList<>();
        try {
            await("every accepted run to reach run_end at its client").atMost(settle).pollInterval(Duration.ofMillis(500))
                    .until(() -> runs.stream().allMatch(r -> r.done.isDone()));
        } catch (ConditionTimeoutException e) {
            List<ResumingRun> stuck = runs.stream().filter(r -> !r.done.isDone()).toList();
            problems.add(stuck.size() + " clients still without run_end after " + settle + ":");
            stuck.stream().limit(20).forEach(r -> problems.add("  " + r + " state " + state(redis, r.runId)));
            stuck.forEach(ResumingRun::abandon);
        }
        long settledAt = System.nanoTime();
        try {
            await("no run to be left queued or running in Redis").atMost(settled).pollInterval(Duration.ofSeconds(1))
                    .ignoreExceptions().until(() -> unsettledRuns(redis).isEmpty());
        } catch (ConditionTimeoutException e) {
            Map<String, Map<String, String>> unsettled = unsettledRuns(redis);
            problems.add(unsettled.size() + " runs left queued or running in Redis " + settled + " after the clients were done:");
            unsettled.entrySet().stream().limit(20).forEach(s -> problems.add("  " + s.getKey() + " " + s.getValue()
                    + " client " + runs.stream().filter(r -> s.getKey().equals(r.runId)).findFirst().map(Object::toString).orElse("none")));
        }

        Map<String, List<RunEvent>> topic = EventTopic.readAll(kafkaBootstrap, Duration.ofSeconds(60));
        List<ResumingRun> accepted = runs.stream().filter(r -> r.outcome == ResumingRun.Outcome.ACCEPTED).toList();
        List<ResumingRun> refused = runs.stream().filter(r -> r.outcome == ResumingRun.Outcome.REFUSED).toList();
        List<ResumingRun> unanswered = runs.stream().filter(r -> r.outcome == ResumingRun.Outcome.UNANSWERED).toList();
        long lost = 0;
        long duplicated = 0;
        int clean = 0;
        int retried = 0;
        Map<String, Integer> endStatuses = new TreeMap<>();
        for (ResumingRun run : accepted) {
            ClientView view = run.view();
            lost += Math.max(0, view.lost());
            duplicated += view.duplicates();
            String failure = transcriptProblem(run, view);
            List<RunEvent> events = view.events();
            if (!events.isEmpty() && events.getLast().data() instanceof EventData.RunEnd end) {
                endStatuses.merge(end.status().wireName(), 1, Integer::sum);
                if (failure == null) {
                    clean++;
                }
            }
            if (view.attempts() > 1 || lastAttempt(view) > 1) {
                retried++;
            }
            if (failure != null) {
                problems.add("accepted run " + run.runId + ": " + failure + "; " + run + " types " + types(view)
                        + " state " + state(redis, run.runId) + " topic " + topic.getOrDefault(run.runId, List.of()).stream()
                        .map(e -> e.seq() + ":" + e.type().wireName() + "@" + e.epoch()).toList());
            }
        }
        problems.addAll(refusedButExecuted(refused, redis, topic));
        return new Audit(settledAt, problems, accepted, refused, unanswered, lost, duplicated, clean, retried, endStatuses);
    }
}
