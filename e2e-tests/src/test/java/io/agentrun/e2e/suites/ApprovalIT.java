package io.agentrun.e2e.suites;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.e2e.fixture.SseEvent;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.worker.fake.TestMcpServer;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

/**
 * A tool call that waits for a person, through the whole pipeline: the run pauses ({@code approval_required}, status
 * {@code waiting}, the stream open, no worker holding it), a decision recorded once resumes it — on any worker, the
 * next seq, the next epoch — and the tool (a real MCP server's, which counts its calls) runs only when approved.
 * Deny, the deadline, cancel while waiting, a worker gone while it waits, and who may decide.
 */
@ExtendWith(RealInfrastructure.class)
class ApprovalIT {

    private static final JsonCodec CODEC = new JsonCodec();
    private static final Map<String, String> JSON = Map.of("content-type", "application/json");
    private static final String NOTE = "/tool add_note {\"order_id\": \"ORD-9\", \"text\": \"refund approved\"}";

    static TestMcpServer server;
    static Pipeline pipeline;
    static ApiClient client;
    static ApiClient admin;

    @BeforeAll
    static void start() {
        server = new TestMcpServer();
        pipeline = Pipeline.start(1, 2, 1, Map.of("agentrun.mcp.allowed-networks", "127.0.0.0/8",
                "agentrun.worker.sweep-interval", "200ms"));
        client = new ApiClient(pipeline.api(0), pipeline.projectId, pipeline.apiKey);
        admin = new ApiClient(pipeline.api(0), Map.of("Authorization", "Bearer " + pipeline.adminToken));
        assertThat(admin.exchange("POST", "/admin/v1/projects/" + pipeline.projectId + "/mcp-servers", JSON,
                "{\"id\": \"orders\", \"url\": \"" + server.url() + "\"}").statusCode()).isEqualTo(201);
        putAgent("clerk", "{\"tools\": [\"add_note\"], \"deadline\": \"1h\"}");
        putAgent("hasty", "{\"tools\": [\"add_note\"], \"deadline\": \"2s\"}");
        putAgent("widget-clerk", "{\"tools\": [\"add_note\"], \"publishable_keys\": true}");
    }

    @AfterAll
    static void stop() {
        if (pipeline != null) {
            pipeline.close();
        }
        server.close();
    }

    @Test
    void aRunPausesWithItsStreamOpenAndAnApprovalResumesItAndRunsTheToolOnce() throws Exception {
        int before = server.calls("add_note");
        HttpResponse<InputStream> response = client.openStream("clerk", null, ApiClient.body(NOTE));
        List<SseEvent> events = new ArrayList<>(ApiClient.readUntil(response.body(), e -> !"approval_required".equals(e.event())));
        JsonNode required = data(events.getLast());
        String runId = response.headers().firstValue("x-run-id").orElseThrow();
        String threadId = response.headers().firstValue("x-thread-id").orElseThrow();

        assertThat(required.get("name").asString()).isEqualTo("add_note");
        assertThat(required.at("/arguments/order_id").asString()).isEqualTo("ORD-9");
        assertThat(required.has("checkpoint")).as("the checkpoint stays in the event topic").isFalse();
        assertThat(required.get("deciders")).extracting(JsonNode::asString).containsExactly("secret_key", "session");
        JsonNode waiting = awaitStatus(runId, "waiting");
        assertThat(waiting.at("/pending_approval/tool_call_id").asString()).isEqualTo(required.get("tool_call_id").asString());
        assertThat(server.calls("add_note")).as("nothing runs before a decision").isEqualTo(before);

        HttpResponse<String> approved = decide(client, threadId, runId, required.get("tool_call_id").asString(), "approve", "ok");
        assertThat(approved.statusCode()).as(approved.body()).isEqualTo(200);
        events.addAll(ApiClient.readUntil(response.body(), e -> !"run_end".equals(e.event())));

        assertThat(types(events)).containsSubsequence("run_start", "approval_required", "approval_decided", "tool_start", "tool_end", "run_end");
        assertSeqsOnceInOrder(events);
        JsonNode decided = data(events.stream().filter(e -> "approval_decided".equals(e.event())).findFirst().orElseThrow());
        assertThat(decided.get("decision").asString()).isEqualTo("approve");
        assertThat(decided.get("decided_by").asString()).startsWith("secret_key:");
        assertThat(epoch(events, "approval_decided")).as("resumed as the next epoch").isEqualTo(epoch(events, "approval_required") + 1);
        assertThat(data(events.getLast()).get("output").asString()).contains("Noted on ORD-9: refund approved");
        assertThat(server.calls("add_note")).isEqualTo(before + 1);

        // After the run ended: the decision stands (a retry is answered as recorded, another decision is refused), and a
        // call the run never waited for meets the ended run.
        String callId = required.get("tool_call_id").asString();
        HttpResponse<String> retried = decide(client, threadId, runId, callId, "approve", "refund approved");
        assertThat(retried.statusCode()).as(retried.body()).isEqualTo(200);
        HttpResponse<String> again = decide(client, threadId, runId, callId, "deny", "");
        assertThat(again.statusCode()).isEqualTo(409);
        assertThat(again.body()).contains("\"code\":\"approval_already_decided\"");
        HttpResponse<String> other = decide(client, threadId, runId, "call_never_waited_for", "deny", "");
        assertThat(other.statusCode()).isEqualTo(409);
        assertThat(other.body()).contains("\"code\":\"run_ended\"");
    }

    @Test
    void aDenialIsToldToTheModelAndTheToolNeverRuns() throws Exception {
        int before = server.calls("add_note");
        Paused paused = pause("clerk");

        HttpResponse<String> denied = decide(client, paused.threadId, paused.runId, paused.callId, "deny", "not without a receipt");
        HttpResponse<String> second = decide(client, paused.threadId, paused.runId, paused.callId, "approve", "");
        List<SseEvent> rest = ApiClient.readUntil(paused.response.body(), e -> !"run_end".equals(e.event()));

        assertThat(denied.statusCode()).isEqualTo(200);
        assertThat(second.statusCode()).isEqualTo(409);
        assertThat(second.body()).contains("\"code\":\"approval_already_decided\"");
        assertThat(types(rest)).contains("approval_decided").doesNotContain("tool_start", "tool_end");
        assertThat(data(rest.getLast()).get("status").asString()).isEqualTo("completed");
        assertThat(data(rest.getLast()).get("output").asString()).contains("A person denied this call: not without a receipt");
        assertThat(server.calls("add_note")).isEqualTo(before);
    }

    @Test
    void nobodyDecidingByTheDeadlineDeniesTheCall() throws Exception {
        int before = server.calls("add_note");
        Paused paused = pause("hasty");

        List<SseEvent> rest = ApiClient.readUntil(paused.response.body(), e -> !"run_end".equals(e.event()));

        JsonNode decided = data(rest.stream().filter(e -> "approval_decided".equals(e.event())).findFirst().orElseThrow());
        assertThat(decided.get("decision").asString()).isEqualTo("deny");
        assertThat(decided.get("decided_by").asString()).isEqualTo("deadline");
        assertThat(data(rest.getLast()).get("output").asString()).contains("nobody decided before the deadline");
        assertThat(server.calls("add_note")).isEqualTo(before);
        HttpResponse<String> late = decide(client, paused.threadId, paused.runId, paused.callId, "approve", "");
        assertThat(late.statusCode()).isEqualTo(409);
    }

    @Test
    void cancellingAWaitingRunEndsItCancelledWithoutRunningTheTool() throws Exception {
        int before = server.calls("add_note");
        Paused paused = pause("clerk");

        assertThat(client.cancel(paused.threadId, paused.runId).statusCode()).isEqualTo(202);
        List<SseEvent> rest = ApiClient.readUntil(paused.response.body(), e -> !"run_end".equals(e.event()));

        assertThat(data(rest.getLast()).get("status").asString()).isEqualTo("cancelled");
        assertThat(types(rest)).doesNotContain("tool_start", "approval_decided");
        assertThat(server.calls("add_note")).isEqualTo(before);
    }

    /**
     * Runs wait for a person; meanwhile the MCP server is redeployed (it forgets every session). Each approved call still
     * runs, once: the worker that resumes a run begins a new session instead of failing the call it was approved for.
     */
    @Test
    void approvedCallsThatMeetARestartedServerRun() throws Exception {
        List<Paused> paused = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            paused.add(pause("clerk")); // each worker that takes one begins a session with the server
        }
        server = server.restarted();
        for (Paused run : paused) {
            HttpResponse<String> approved = decide(client, run.threadId, run.runId, run.callId, "approve", "");
            assertThat(approved.statusCode()).as(approved.body()).isEqualTo(200);
        }
        for (Paused run : paused) {
            List<SseEvent> rest = ApiClient.readUntil(run.response.body(), e -> !"run_end".equals(e.event()));
            JsonNode toolEnd = data(rest.stream().filter(e -> "tool_end".equals(e.event())).findFirst().orElseThrow());
            assertThat(toolEnd.get("is_error").asBoolean()).as(toolEnd.toString()).isFalse();
            assertThat(data(rest.getLast()).get("output").asString()).contains("Noted on ORD-9: refund approved");
            assertThat(server.executedKeys("add_note")).contains(run.runId + "/" + run.callId);
        }
    }

    @Test
    void aClientThatLeftWhileTheRunWaitedJoinsAcrossThePauseAndSeesEachSeqOnce() throws Exception {
        int before = server.calls("add_note");
        Paused paused = pause("clerk");
        awaitStatus(paused.runId, "waiting");
        paused.response.body().close(); // the client goes away while it waits

        HttpResponse<String> approved = decide(client, paused.threadId, paused.runId, paused.callId, "approve", "");
        assertThat(approved.statusCode()).isEqualTo(200);
        ApiClient.StreamResponse joined = client.join(paused.threadId, paused.runId, Long.toString(paused.seq));

        List<SseEvent> all = new ArrayList<>(paused.events);
        all.addAll(joined.events());
        assertSeqsOnceInOrder(all);
        assertThat(types(joined.events())).startsWith("approval_decided").contains("tool_end");
        assertThat(data(joined.events().getLast()).get("status").asString()).isEqualTo("completed");
        assertThat(server.calls("add_note")).isEqualTo(before + 1);
    }

    @Test
    void whoMayDecide() throws Exception {
        Paused paused = pause("clerk");

        HttpResponse<String> unknownCall = decide(client, paused.threadId, paused.runId, "call_nothing", "approve", "");
        assertThat(unknownCall.statusCode()).isEqualTo(404);
        assertThat(unknownCall.body()).contains("\"code\":\"approval_not_found\"");
        HttpResponse<String> badBody = client.exchange("POST", approvalPath(paused), JSON, "{\"decision\": \"maybe\"}");
        assertThat(badBody.statusCode()).isEqualTo(400);

        ApiClient otherProject = otherProjectClient();
        HttpResponse<String> foreign = decide(otherProject, paused.threadId, paused.runId, paused.callId, "approve", "");
        assertThat(foreign.statusCode()).as(foreign.body()).isEqualTo(404);

        ApiClient browser = publishableClient(List.of("clerk", "widget-clerk"));
        HttpResponse<String> notAllowed = decide(browser, paused.threadId, paused.runId, paused.callId, "approve", "");
        assertThat(notAllowed.statusCode()).as("a publishable key sees no thread it did not start").isEqualTo(404);

        HttpResponse<InputStream> own = browser.openStream("clerk", null, ApiClient.body(NOTE));
        List<SseEvent> ownEvents = ApiClient.readUntil(own.body(), e -> !"approval_required".equals(e.event()));
        HttpResponse<String> refused = decide(browser, own.headers().firstValue("x-thread-id").orElseThrow(),
                own.headers().firstValue("x-run-id").orElseThrow(), data(ownEvents.getLast()).get("tool_call_id").asString(), "approve", "");
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(403);

        HttpResponse<InputStream> widget = browser.openStream("widget-clerk", null, ApiClient.body(NOTE));
        List<SseEvent> widgetEvents = ApiClient.readUntil(widget.body(), e -> !"approval_required".equals(e.event()));
        assertThat(data(widgetEvents.getLast()).get("deciders")).extracting(JsonNode::asString).contains("publishable_key");
        HttpResponse<String> allowed = decide(browser, widget.headers().firstValue("x-thread-id").orElseThrow(),
                widget.headers().firstValue("x-run-id").orElseThrow(), data(widgetEvents.getLast()).get("tool_call_id").asString(), "approve", "");
        assertThat(allowed.statusCode()).as(allowed.body()).isEqualTo(200);
        assertThat(ApiClient.readUntil(widget.body(), e -> !"run_end".equals(e.event()))).extracting(SseEvent::event).contains("tool_end");

        assertThat(decide(client, paused.threadId, paused.runId, paused.callId, "deny", "").statusCode()).isEqualTo(200);
        own.body().close();
    }

    /** A run of {@code agent} paused on add_note, its stream read up to approval_required. */
    private record Paused(HttpResponse<InputStream> response, List<SseEvent> events, String runId, String threadId, String callId, long seq) {
    }

    private static Paused pause(String agent) throws Exception {
        HttpResponse<InputStream> response = client.openStream(agent, null, ApiClient.body(NOTE));
        assertThat(response.statusCode()).isEqualTo(200);
        List<SseEvent> events = ApiClient.readUntil(response.body(), e -> !"approval_required".equals(e.event()));
        assertThat(events.getLast().event()).isEqualTo("approval_required");
        return new Paused(response, events, response.headers().firstValue("x-run-id").orElseThrow(),
                response.headers().firstValue("x-thread-id").orElseThrow(), data(events.getLast()).get("tool_call_id").asString(),
                Long.parseLong(events.getLast().id()));
    }

    private static HttpResponse<String> decide(ApiClient caller, String threadId, String runId, String callId, String decision, String reason) {
        return caller.exchange("POST", "/api/v1/threads/" + threadId + "/runs/" + runId + "/approvals/" + callId, JSON,
                "{\"decision\": \"" + decision + "\", \"reason\": \"" + reason + "\"}");
    }

    private static String approvalPath(Paused paused) {
        return "/api/v1/threads/" + paused.threadId + "/runs/" + paused.runId + "/approvals/" + paused.callId;
    }

    private static JsonNode awaitStatus(String runId, String status) {
        return await().atMost(Duration.ofSeconds(20)).until(() -> CODEC.read(client.get("/api/v1/runs/" + runId).body(), JsonNode.class),
                run -> status.equals(run.path("status").asString()));
    }

    private static void putAgent(String id, String approvals) {
        HttpResponse<String> put = admin.exchange("PUT", "/admin/v1/projects/" + pipeline.projectId + "/agents/" + id, JSON,
                "{\"provider\": \"scripted\", \"mcp_servers\": [{\"server\": \"orders\", \"tools\": [\"add_note\"]}], \"approvals\": "
                        + approvals + "}");
        assertThat(put.statusCode()).as(put.body()).isIn(200, 201);
    }

    private static ApiClient otherProjectClient() {
        String project = "other-" + UUID.randomUUID().toString().substring(0, 8);
        assertThat(admin.exchange("POST", "/admin/v1/projects", JSON, "{\"id\": \"" + project + "\"}").statusCode()).isEqualTo(201);
        HttpResponse<String> key = admin.exchange("POST", "/admin/v1/projects/" + project + "/keys", JSON,
                "{\"kind\": \"secret\", \"label\": \"other\", \"environment\": \"development\"}");
        assertThat(key.statusCode()).as(key.body()).isIn(200, 201);
        return new ApiClient(pipeline.api(0), project, CODEC.read(key.body(), JsonNode.class).path("api_key").asString());
    }

    private static ApiClient publishableClient(List<String> agents) {
        HttpResponse<String> issued = admin.exchange("POST", "/admin/v1/projects/" + pipeline.projectId + "/keys", JSON,
                "{\"kind\":\"publishable\",\"label\":\"widget\",\"environment\":\"development\",\"agents\":" + CODEC.write(agents)
                        + ",\"allowed_origins\":[\"https://shop.example.com\"]}");
        assertThat(issued.statusCode()).as(issued.body()).isIn(200, 201);
        return new ApiClient(pipeline.api(0), Map.of("x-api-key", CODEC.read(issued.body(), JsonNode.class).path("api_key").asString(),
                "Origin", "https://shop.example.com"));
    }

    private static void assertSeqsOnceInOrder(List<SseEvent> events) {
        List<Long> seqs = events.stream().filter(e -> e.id() != null).map(e -> Long.parseLong(e.id())).toList();
        for (int i = 0; i < seqs.size(); i++) {
            assertThat(seqs.get(i)).as("seq %d of %s", i, seqs).isEqualTo((long) i);
        }
    }

    private static List<String> types(List<SseEvent> events) {
        return events.stream().map(SseEvent::event).toList();
    }

    private static int epoch(List<SseEvent> events, String type) {
        return CODEC.read(events.stream().filter(e -> type.equals(e.event())).findFirst().orElseThrow().data(), JsonNode.class)
                .get("epoch").asInt();
    }

    private static JsonNode data(SseEvent event) {
        return CODEC.read(event.data(), JsonNode.class).get("data");
    }
}
