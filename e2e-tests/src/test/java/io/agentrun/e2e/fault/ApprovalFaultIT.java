package io.agentrun.e2e.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.StackProcess;
import io.agentrun.e2e.fixture.SuiteLanes;
import io.agentrun.client.AgentrunClient;
import io.agentrun.client.RunRequest;
import io.agentrun.client.RunStream;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.event.RunStatus;
import io.agentrun.worker.fake.TestMcpServer;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Approvals under load and faults, against the local stack as child processes (2 api nodes, 2 workers, 2 relays): 200
 * concurrent streams of an agent whose tool (a real MCP server's, in this JVM) waits for a person; each run pauses, and a
 * client decides 0–5 s after it saw {@code approval_required} (one in ten denied), while a worker and then a relay are
 * SIGKILLed. Every run must end {@code completed} exactly once with each seq once, in order; every approved call must be
 * done exactly once (the server keeps agentrun's idempotency key, as a server with side effects would), and no denied
 * or undecided call at all.
 */
@Order(SuiteLanes.SHARED_STACK_SUITES)
@ResourceLock(SuiteLanes.SHARED_STACK) // kills processes of the shared fault stack
@ExtendWith(RealInfrastructure.class)
class ApprovalFaultIT {

    private static final int RUNS = 200;
    private static final Duration SETTLE = Duration.ofMinutes(4);
    /** How long after a worker's kill a decision counts as made while the pipeline recovered from it. */
    private static final Duration KILL_REACH = Duration.ofSeconds(10);
    private static final String SUITE = Long.toString(System.nanoTime(), 36);
    private static final String AGENT = "approver-" + SUITE;

    /** Shared with the other fault suites of this JVM: not closed here. */
    static StackProcess stack;
    @AutoClose
    static AgentrunClient client;
    static TestMcpServer server;

    @BeforeAll
    static void start() {
        stack = StackProcess.shared();
        server = new TestMcpServer();
        ApiClient admin = new ApiClient(stack.api(0), Map.of("Authorization", "Bearer " + stack.adminToken()));
        Map<String, String> json = Map.of("content-type", "application/json");
        HttpResponse<String> registered = admin.exchange("POST", "/admin/v1/projects/demo/mcp-servers", json,
                "{\"id\": \"notes-" + SUITE + "\", \"url\": \"" + server.url() + "\"}");
        assertThat(registered.statusCode()).as(registered.body()).isEqualTo(201);
        HttpResponse<String> agent = admin.exchange("PUT", "/admin/v1/projects/demo/agents/" + AGENT, json,
                "{\"provider\": \"scripted\", \"mcp_servers\": [{\"server\": \"notes-" + SUITE + "\", \"tools\": [\"add_note\"]}],"
                        + " \"approvals\": {\"tools\": [\"add_note\"], \"deadline\": \"10m\"},"
                        // The answer after the tool streams in ~2 s, so the kills strike resumed runs mid-way.
                        + " \"scripted\": {\"words_per_delta\": 2, \"delta_delay_ms\": 400}}");
        assertThat(agent.statusCode()).as(agent.body()).isIn(200, 201);
        client = AgentrunClient.builder().baseUrl(stack.api(1)).apiKey(StackProcess.API_KEY).projectId("demo")
                .retry(Duration.ofMillis(100), Duration.ofSeconds(3), Duration.ofMinutes(3)).build();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** What one run's client saw and decided. */
    static final class Seen {
        final int index;
        final boolean approve;
        final List<RunEvent> events = new CopyOnWriteArrayList<>();
        /**
         * When the decision was sent, and when a worker resumed the run (its approval_decided's createdAt): epoch ms of this
         * machine's clock, which the worker's shares. The resume is the worker's, not the relay's delivery of it.
         */
        volatile long decidedAt;
        volatile long resumedAt;
        /** When this client saw approval_decided (epoch ms): the worker's resume, then the relay's delivery. */
        volatile long seenResumedAt;
        volatile RunStream stream;
        volatile Throwable failure;
        volatile String decisionFailure;

        Seen(int index) {
            this.index = index;
            this.approve = index % 10 != 0;
        }

        String query() {
            return "/tool add_note {\"order_id\": \"ORD-" + index + "\", \"text\": \"note " + SUITE + "-" + index + "\"}";
        }

        void run(ExecutorService deciders, AtomicInteger decided) {
            try (RunStream s = client.runs().stream(AGENT, RunRequest.of(query()))) {
                stream = s;
                for (RunEvent event : s) {
                    events.add(event);
                    if (event.data() instanceof EventData.ApprovalDecided && resumedAt == 0) {
                        resumedAt = event.createdAt().toEpochMilli();
                        seenResumedAt = System.currentTimeMillis();
                    }
                    if (event.data() instanceof EventData.ApprovalRequired approval) {
                        deciders.submit(() -> decide(s, approval, decided));
                    }
                }
            } catch (Throwable t) {
                failure = t;
            }
        }

        /** A person takes 0–5 s. */
        private void decide(RunStream s, EventData.ApprovalRequired approval, AtomicInteger decided) {
            try {
                Thread.sleep(ThreadLocalRandom.current().nextLong(5_000));
                decidedAt = System.currentTimeMillis();
                client.runs().decide(s.threadId(), s.runId(), approval.toolCallId(), approve ? "approve" : "deny",
                        approve ? "" : "not this one");
                decided.incrementAndGet();
            } catch (Throwable t) {
                decisionFailure = t.toString();
            }
        }

        /** Null when the run was whole: seq 0..n once, in order, one run_end completed last, with the decision's answer. */
        String problem() {
            if (failure != null || decisionFailure != null) {
                return "failed: " + failure + " / decision: " + decisionFailure;
            }
            String shape = RunAudit.sdkStreamProblem(events);
            if (shape != null) {
                return shape;
            }
            EventData.RunEnd end = (EventData.RunEnd) events.getLast().data();
            String expected = approve ? "Noted on ORD-" + index + ": note " + SUITE + "-" + index : "A person denied this call: not this one";
            if (end.status() != RunStatus.COMPLETED || !end.output().contains(expected)) {
                return "run_end " + end.status() + " '" + end.output() + "'";
            }
            return null;
        }
    }

    @Test
    void twoHundredRunsPauseAreDecidedByPeopleWhileAWorkerAndARelayDieAndEachApprovedToolRunsOnce() throws Exception {
        List<Seen> seen = new ArrayList<>();
        List<String> kills = new ArrayList<>();
        long[] workerKilled = new long[1]; // epoch ms
        AtomicInteger decided = new AtomicInteger();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
                ExecutorService deciders = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < RUNS; i++) {
                Seen s = new Seen(i);
                seen.add(s);
                done.add(threads.submit(() -> s.run(deciders, decided)));
            }
            await("half of the runs to wait for a person").atMost(Duration.ofSeconds(120)).until(() -> waiting(seen) >= RUNS / 2);
            long start = System.nanoTime();
            // Each fault strikes while people decide: runs wait (no worker holds them), resume, and stream their answers.
            for (Map.Entry<String, Integer> fault : List.of(Map.entry("worker-1", RUNS * 2 / 5), Map.entry("relay-1", RUNS * 3 / 4))) {
                String name = fault.getKey();
                await(fault.getValue() + " decisions before killing " + name).atMost(Duration.ofSeconds(120))
                        .until(() -> decided.get() >= fault.getValue());
                long pausedOrDeciding = seen.stream().filter(s -> !ended(s)).count();
                long killed = System.currentTimeMillis();
                stack.kill9AndAwaitRestart(name);
                if (name.startsWith("worker")) {
                    workerKilled[0] = killed;
                }
                kills.add(name + " at " + Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms with " + pausedOrDeciding
                        + " runs not ended, " + decided.get() + " decided");
            }
            for (Future<?> f : done) {
                f.get(SETTLE.toSeconds(), TimeUnit.SECONDS);
            }
        }

        Map<Integer, String> problems = new TreeMap<>();
        for (Seen s : seen) {
            String problem = s.problem();
            if (problem != null) {
                problems.put(s.index, problem);
            }
        }
        Set<String> approvedRuns = seen.stream().filter(s -> s.approve && s.stream != null).map(s -> s.stream.runId()).collect(Collectors.toSet());
        Map<String, Long> doneByRun = server.executedKeys("add_note").stream()
                .collect(Collectors.groupingBy(key -> key.substring(0, key.indexOf('/')), Collectors.counting()));
        long resumedElsewhere = seen.stream().filter(s -> s.events.stream().anyMatch(e -> e.data() instanceof EventData.RunStart start
                && start.attempt() > 1) || s.events.stream().filter(e -> e.data() instanceof EventData.ApprovalDecided).count() > 1).count();
        String figures = "Approval fault test: runs " + RUNS + ", whole " + (RUNS - problems.size()) + ", decided " + decided.get()
                + " (approved " + approvedRuns.size() + "), calls received " + server.calls("add_note") + ", calls done "
                + server.executions("add_note") + ", runs whose tool was done " + doneByRun.size() + ", runs with a second attempt "
                + resumedElsewhere + ", kills " + kills;
        System.out.println(figures);
        // The runs the worker's kill could hold up: decided before it and not yet resumed then, or decided within
        // KILL_REACH after it. A command on a partition the dead member held waits until the share group gives the
        // partition to the live worker: group.share.session.timeout.ms and the heartbeat bound it (docs/reliability.md).
        java.util.function.Predicate<Seen> heldUp = s -> s.decidedAt < workerKilled[0] + KILL_REACH.toMillis() && s.resumedAt > workerKilled[0];
        List<Long> pauses = resumptionPauses(seen, heldUp, s -> s.resumedAt);
        List<Long> others = resumptionPauses(seen, s -> s.resumedAt < workerKilled[0], s -> s.resumedAt);
        List<Long> seenPauses = resumptionPauses(seen, heldUp, s -> s.seenResumedAt);
        String pauseFigures = "Resumption pause (decision sent to a worker's approval_decided): runs the worker's kill could hold up: "
                + pauses.size() + ", p50 " + percentile(pauses, 50) + " ms, p90 " + percentile(pauses, 90) + " ms, max "
                + percentile(pauses, 100) + " ms; runs resumed before the kill: " + others.size() + ", p50 " + percentile(others, 50)
                + " ms, max " + percentile(others, 100) + " ms; seen by their clients (a relay was killed too): p50 "
                + percentile(seenPauses, 50) + " ms, max " + percentile(seenPauses, 100) + " ms";
        System.out.println(pauseFigures);

        assertThat(problems).as(figures).isEmpty();
        assertThat(doneByRun.keySet()).as("every approved call done, and no other").isEqualTo(approvedRuns);
        assertThat(doneByRun.values()).as("each once").containsOnly(1L);
        assertThat(decided.get()).isEqualTo(RUNS);
        // The kill may cost a decided run at the median no more than the share group's failover bound (the broker's
        // share session, 3 s, and the live worker's next heartbeat, 1 s: docs/reliability.md) beyond what the runs it
        // could not touch took in the same run, twice over: the held-up runs also meet the restarted worker's start, which
        // on a slow two-core machine beside the other lane takes a core for seconds (CI at 013e62b: 6.4 s against 1.8 s
        // for the runs before the kill; a quiet machine: 2.4 s against 0.5 s). A group that waited for Kafka's default
        // 45 s session, or never gave the partitions over, fails it.
        long failoverBound = Duration.ofSeconds(3 + 1).toMillis();
        assertThat(pauses).as(pauseFigures).isNotEmpty();
        assertThat(percentile(pauses, 50)).as(pauseFigures).isLessThanOrEqualTo(failoverBound + 2 * Math.max(0, percentile(others, 50)));
    }

    /**
     * In ms, sorted, for each decided and resumed run that {@code which} takes: from its decision sent to {@code resumed}
     * (when a worker resumed it, or when its client saw that).
     */
    private static List<Long> resumptionPauses(List<Seen> seen, java.util.function.Predicate<Seen> which,
            java.util.function.ToLongFunction<Seen> resumed) {
        return seen.stream().filter(s -> s.decidedAt > 0 && s.resumedAt > 0).filter(which)
                .map(s -> resumed.applyAsLong(s) - s.decidedAt).sorted().toList();
    }

    private static long percentile(List<Long> sorted, int percent) {
        return sorted.isEmpty() ? -1 : sorted.get(Math.max(0, (int) Math.ceil(percent / 100.0 * sorted.size()) - 1));
    }

    @Test
    void onTheLocalStacksProcessesAnAgentUsesTwoToolsOfARealMcpServer() {
        HttpResponse<String> agent = new ApiClient(stack.api(0), Map.of("Authorization", "Bearer " + stack.adminToken())).exchange("PUT",
                "/admin/v1/projects/demo/agents/clerk-" + SUITE, Map.of("content-type", "application/json"),
                "{\"provider\": \"scripted\", \"mcp_servers\": [{\"server\": \"notes-" + SUITE + "\", \"tools\": [\"lookup_order\", \"add_note\"]}]}");
        assertThat(agent.statusCode()).as(agent.body()).isIn(200, 201);

        List<RunEvent> events = new ArrayList<>();
        try (RunStream s = client.runs().stream("clerk-" + SUITE, RunRequest.of(
                "/tool lookup_order {\"order_id\": \"ORD-5\"} ;; add_note {\"order_id\": \"ORD-5\", \"text\": \"two tools\"}"))) {
            s.forEach(events::add);
        }

        List<EventData.ToolEnd> ends = events.stream().map(RunEvent::data).filter(EventData.ToolEnd.class::isInstance)
                .map(EventData.ToolEnd.class::cast).toList();
        assertThat(ends).extracting(EventData.ToolEnd::name).containsExactly("lookup_order", "add_note");
        assertThat(ends).extracting(EventData.ToolEnd::isError).containsOnly(false);
        EventData.RunEnd end = (EventData.RunEnd) events.getLast().data();
        assertThat(end.output()).contains("Order ORD-5: shipped, 2 items").contains("Noted on ORD-5: two tools");
    }

    @Test
    void theWorkerThatHeldAWaitingRunIsKilledAndADecisionLaterResumesItWithEachSeqOnceAndTheToolRunOnce() throws Exception {
        String patient = "patient-" + SUITE;
        HttpResponse<String> agent = new ApiClient(stack.api(0), Map.of("Authorization", "Bearer " + stack.adminToken())).exchange("PUT",
                "/admin/v1/projects/demo/agents/" + patient, Map.of("content-type", "application/json"),
                "{\"provider\": \"scripted\", \"mcp_servers\": [{\"server\": \"notes-" + SUITE + "\", \"tools\": [\"add_note\"]}],"
                        + " \"approvals\": {\"tools\": [\"add_note\"], \"deadline\": \"2h\"}}");
        assertThat(agent.statusCode()).as(agent.body()).isIn(200, 201);
        String query = "/tool add_note {\"order_id\": \"ORD-77\", \"text\": \"later " + SUITE + "\"}";
        RunStream first = client.runs().stream(patient, RunRequest.of(query));
        List<RunEvent> seen = new ArrayList<>();
        EventData.ApprovalRequired approval = null;
        for (RunEvent event : first) {
            seen.add(event);
            if (event.data() instanceof EventData.ApprovalRequired required) {
                approval = required;
                break;
            }
        }
        assertThat(approval).isNotNull();
        String runId = first.runId();
        String threadId = first.threadId();
        first.close(); // the client leaves while the run waits
        String holder = stack.redis().sync().hget("ar:run:{" + runId + "}", "worker");
        long holderPid = stack.pid(holder);
        await("the run let go of").atMost(Duration.ofSeconds(20))
                .until(() -> "".equals(stack.redis().sync().hget("ar:run:{" + runId + "}", "owner")));
        stack.kill9AndAwaitRestart(holder);
        // A decision an hour later finds the run as it left it: nothing that keeps it expires within its 2 h deadline — its
        // hash, its events for a rejoin, its thread's lock (Redis's clocks, which no test can move) — and nothing else waits
        // on time meanwhile: no worker holds it, the sweeper looks at it only at the deadline.
        for (String key : List.of("ar:run:{" + runId + "}", "ar:run:{" + runId + "}:events", "ar:thread:{" + threadId + "}:lock")) {
            assertThat(stack.redis().sync().pttl(key)).as("ms %s lives on", key).isGreaterThan(Duration.ofHours(2).toMillis());
        }
        // The worker moves the run's due entry to the deadline just after it lets go (a second call: the run's hash and
        // the due index live on different Redis Cluster shards). Killed between the two, or with a lease renewal of its
        // in flight, it leaves the entry at its lease's end (5 s): the sweeper's look then finds the run waiting for a
        // person and puts the entry at the deadline.
        String due = io.agentrun.model.naming.RedisKeys.runsDue(io.agentrun.model.naming.Topics.RUN_COMMANDS);
        await("the sweeper's next look: the deadline").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> stack.redis().sync().zscore(due, runId),
                        at -> at != null && at > System.currentTimeMillis() + Duration.ofMinutes(119).toMillis());

        client.runs().decide(threadId, runId, approval.toolCallId(), "approve", "checked later");
        List<RunEvent> rest = new ArrayList<>();
        try (RunStream joined = client.runs().join(threadId, runId, seen.getLast().seq())) {
            joined.forEach(rest::add);
        }

        List<RunEvent> all = new ArrayList<>(seen);
        all.addAll(rest);
        assertThat(all).extracting(RunEvent::seq).containsExactlyElementsOf(java.util.stream.LongStream.range(0, all.size()).boxed().toList());
        assertThat(rest.getFirst().data()).isInstanceOf(EventData.ApprovalDecided.class);
        assertThat(((EventData.RunEnd) rest.getLast().data()).output()).contains("Noted on ORD-77: later " + SUITE);
        assertThat(server.executedKeys("add_note")).filteredOn(key -> key.startsWith(runId + "/")).hasSize(1);
        assertThat(stack.pid(holder)).as("the worker that held it was replaced").isNotEqualTo(holderPid);
    }

    private static long waiting(List<Seen> seen) {
        return seen.stream().filter(s -> s.events.stream().anyMatch(e -> e.data() instanceof EventData.ApprovalRequired)).count();
    }

    private static boolean ended(Seen s) {
        return !s.events.isEmpty() && s.events.getLast().data() instanceof EventData.RunEnd;
    }
}
