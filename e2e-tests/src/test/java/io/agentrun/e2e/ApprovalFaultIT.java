package io.agentrun.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Approvals under load and faults, against the local stack as child processes (2 api nodes, 2 workers, 2 relays): 200
 * concurrent streams of an agent whose tool (a real MCP server's, in this JVM) waits for a person; each run pauses, and a
 * client decides 0–5 s after it saw {@code approval_required} (one in ten denied), while a worker and then a relay are
 * SIGKILLed. Every run must end {@code completed} exactly once with each seq once, in order; every approved call must be
 * done exactly once (the server keeps agentrun's idempotency key, as a server with side effects would), and no denied
 * or undecided call at all.
 */
@ExtendWith(RealInfrastructure.class)
class ApprovalFaultIT {

    private static final int RUNS = 200;
    private static final Duration SETTLE = Duration.ofMinutes(4);
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
                        + " \"approvals\": {\"tools\": [\"add_note\"], \"deadline\": \"10m\"}}");
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
            for (int i = 0; i < events.size(); i++) {
                if (events.get(i).seq() != i) {
                    return "event " + i + " has seq " + events.get(i).seq() + " " + events.stream().map(RunEvent::seq).toList();
                }
            }
            if (events.isEmpty() || !(events.getLast().data() instanceof EventData.RunEnd end)) {
                return "no run_end last";
            }
            if (events.stream().filter(e -> e.data() instanceof EventData.RunEnd).count() != 1) {
                return "more than one run_end";
            }
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
            for (String name : List.of("worker-1", "relay-1")) {
                long pausedOrDeciding = seen.stream().filter(s -> !ended(s)).count();
                stack.kill9AndAwaitRestart(name);
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

        assertThat(problems).as(figures).isEmpty();
        assertThat(doneByRun.keySet()).as("every approved call done, and no other").isEqualTo(approvedRuns);
        assertThat(doneByRun.values()).as("each once").containsOnly(1L);
        assertThat(decided.get()).isEqualTo(RUNS);
    }

    private static long waiting(List<Seen> seen) {
        return seen.stream().filter(s -> s.events.stream().anyMatch(e -> e.data() instanceof EventData.ApprovalRequired)).count();
    }

    private static boolean ended(Seen s) {
        return !s.events.isEmpty() && s.events.getLast().data() instanceof EventData.RunEnd;
    }
}
