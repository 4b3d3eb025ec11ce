package io.agentrun.e2e.suites;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.e2e.fixture.SseEvent;
import io.agentrun.e2e.fixture.Transcript;
import io.agentrun.api.bootstrap.Bootstrap;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.testing.TestData;
import io.agentrun.platform.store.AgentCatalog;
import io.agentrun.model.naming.RedisKeys;
import io.agentrun.ops.cli.OpsCli;
import io.agentrun.platform.store.ThreadStore;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

/** The operators' command line against a live pipeline: replay equals what clients saw; rebuild after Redis lost everything. */
@ExtendWith(RealInfrastructure.class)
class OperationsIT {

    private static final JsonCodec CODEC = new JsonCodec();

    static Pipeline pipeline;
    static ApiClient client;

    @BeforeAll
    static void start() {
        pipeline = Pipeline.startOnOwnRedis(1, 1, 1);
        client = new ApiClient(pipeline.api(0), pipeline.projectId, pipeline.apiKey);
    }

    @AfterAll
    static void stop() {
        pipeline.close();
    }

    @Test
    void replayInSseFormatIsByteForByteWhatTheClientSaw() throws Exception {
        HttpResponse<InputStream> first = client.openStream("assistant", null, ApiClient.body("/think first things first"));
        String threadId = first.headers().firstValue("x-thread-id").orElseThrow();
        byte[] firstBytes = eventBytes(first);
        HttpResponse<InputStream> second = client.openStream("assistant", threadId, ApiClient.body("/tool calculator {\"expression\":\"6*7\"}"));
        String secondRun = second.headers().firstValue("x-run-id").orElseThrow();
        byte[] secondBytes = eventBytes(second);

        Cli whole = cli("replay", "--thread", threadId, "--format", "sse");
        Cli one = cli("replay", "--thread", threadId, "--run", secondRun, "--format", "sse");

        assertThat(whole.status).as(whole.err).isZero();
        assertThat(new String(whole.out, StandardCharsets.UTF_8)).isEqualTo(new String(concat(firstBytes, secondBytes), StandardCharsets.UTF_8));
        assertThat(whole.out).isEqualTo(concat(firstBytes, secondBytes));
        assertThat(one.status).as(one.err).isZero();
        assertThat(one.out).isEqualTo(secondBytes);
        assertThat(new String(secondBytes, StandardCharsets.UTF_8)).contains("event: tool_end");
    }

    @Test
    void theAdminEndpointServesTheSameReplayToTheOperatorOnly() throws Exception {
        HttpResponse<InputStream> streamed = client.openStream("assistant", null, ApiClient.body("for the operator"));
        String threadId = streamed.headers().firstValue("x-thread-id").orElseThrow();
        byte[] seen = eventBytes(streamed);
        String path = "/admin/v1/threads/" + threadId + "/events";
        ApiClient operator = new ApiClient(pipeline.api(0), Map.of("Authorization", "Bearer " + pipeline.adminToken));

        HttpResponse<String> sse = operator.get(path + "?format=sse");
        HttpResponse<String> jsonl = operator.get(path);
        HttpResponse<String> records = operator.get(path + "?format=records");
        HttpResponse<String> unknown = operator.get("/admin/v1/threads/thr_nosuchthread/events");
        HttpResponse<String> badTime = operator.get(path + "?from=yesterday");
        HttpResponse<String> asClient = client.get(path);

        assertThat(sse.statusCode()).isEqualTo(200);
        assertThat(sse.headers().firstValue("content-type").orElse("")).startsWith("text/event-stream");
        assertThat(sse.body()).isEqualTo(new String(seen, StandardCharsets.UTF_8));
        assertThat(jsonl.statusCode()).isEqualTo(200);
        assertThat(jsonl.headers().firstValue("content-type").orElse("")).startsWith("application/x-ndjson");
        assertThat(jsonl.body().lines()).hasSize(new String(seen, StandardCharsets.UTF_8).split("\n\n").length)
                .allSatisfy(line -> assertThat(line).startsWith("{\"type\":"));
        assertThat(records.statusCode()).isEqualTo(200);
        assertThat(records.headers().firstValue("content-type").orElse("")).startsWith("application/x-ndjson");
        List<String> jsonLines = jsonl.body().lines().toList();
        assertThat(records.body().lines().toList()).hasSameSizeAs(jsonLines).allSatisfy(line -> assertThat(line)
                .matches("\\{\"partition\":\\d+,\"offset\":\\d+,\"event\":\\{.*}}"));
        assertThat(records.body().lines().map(line -> line.substring(line.indexOf(",\"event\":") + 9, line.length() - 1)))
                .as("each record's event is the jsonl line").containsExactlyElementsOf(jsonLines);
        Cli replayed = cli("replay", "--thread", threadId, "--format", "records");
        assertThat(replayed.status).as(replayed.err).isZero();
        assertThat(new String(replayed.out, StandardCharsets.UTF_8)).as("./agentrun replay prints the console's timeline")
                .isEqualTo(records.body());
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.body()).contains("\"code\":\"thread_not_found\"");
        assertThat(badTime.statusCode()).isEqualTo(400);
        assertThat(asClient.statusCode()).isEqualTo(401);
    }

    @Test
    void jsonlIsOneEnvelopePerLineAndPrettyIsReadable() {
        var response = client.stream("assistant", null, ApiClient.body("hello replay"));
        String threadId = response.header("x-thread-id");

        Cli jsonl = cli("replay", "--thread", threadId, "--format", "jsonl");
        Cli pretty = cli("replay", "--thread", threadId, "--format", "pretty");

        List<String> lines = new String(jsonl.out, StandardCharsets.UTF_8).lines().toList();
        assertThat(lines).containsExactlyElementsOf(response.events().stream().map(SseEvent::data).toList());
        assertThat(new String(pretty.out, StandardCharsets.UTF_8))
                .contains("run_start", "attempt 1, agent assistant: hello replay", "run_end", "completed in");
    }

    @Test
    void followAndTailShowEventsAsTheyHappen() throws Exception {
        var first = client.stream("assistant", null, ApiClient.body("before following"));
        String threadId = first.header("x-thread-id");
        Running follow = Running.start("replay", "--thread", threadId, "--follow", "--format", "jsonl");
        Running tail = Running.start("tail", "--project", pipeline.projectId, "--type", "run_end", "--format", "jsonl");
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> follow.out().contains("before following"));
            // The tail starts at the end: give its consumer its positions before the run it must see.
            await().atMost(Duration.ofSeconds(30)).until(() -> tail.started());
            var second = client.stream("assistant", threadId, ApiClient.body("while following"));
            String secondRun = second.header("x-run-id");

            await().atMost(Duration.ofSeconds(30)).until(() -> follow.out().contains("\"run_id\":\"" + secondRun + "\",")
                    && follow.out().contains("Echo #2: while following\",\"usage\""));
            await().atMost(Duration.ofSeconds(30)).until(() -> tail.out().contains(secondRun));
            assertThat(tail.out().lines()).allSatisfy(line -> assertThat(line).contains("\"type\":\"run_end\"", pipeline.projectId));
        } finally {
            assertThat(follow.stop()).isZero();
            assertThat(tail.stop()).isZero();
        }
    }

    @Test
    void replayOfAnUnknownThreadSaysSoAndFails() {
        Cli unknown = cli("replay", "--thread", "thr_doesnotexist", "--format", "jsonl");
        Cli usage = cli("replay", "--format", "xml", "--thread", "thr_x");

        assertThat(unknown.status).isEqualTo(1);
        assertThat(unknown.err).contains("no events of thread thr_doesnotexist");
        assertThat(usage.status).isEqualTo(2);
        assertThat(usage.err).contains("unknown format 'xml'");
    }

    @Test
    void afterRedisLostEverythingRebuildBringsBackTheHistoryTheNextTurnSees() {
        var first = client.stream("assistant", null, ApiClient.body("remember me"));
        String threadId = first.header("x-thread-id");
        var second = client.stream("assistant", threadId, ApiClient.body("and me"));
        assertThat(Transcript.of(second.events()).runEnd().output()).isEqualTo("Echo #2: and me");

        pipeline.redis().sync().flushall();
        pipeline.apiBean(Bootstrap.class).afterSingletonsInstantiated(); // keys and agents are not in the event topic
        assertThat(client.stream("assistant", threadId, ApiClient.body("who am i")).status())
                .as("without a rebuild the thread is gone").isEqualTo(404);

        String group = (String) pipeline.properties().get("agentrun.kafka.relay-group");
        Cli refused = cli("rebuild-state", "--relay-group", group);
        // The test sends nothing while rebuilding, so the running relay cannot get ahead of the rebuild.
        Cli rebuilt = cli("rebuild-state", "--relay-group", group, "--force");
        Cli again = cli("rebuild-state", "--relay-group", group, "--force");

        assertThat(refused.status).isEqualTo(1);
        assertThat(refused.err).contains("relay(s) are consuming");
        assertThat(rebuilt.status).as(rebuilt.err).isZero();
        assertThat(new String(rebuilt.out, StandardCharsets.UTF_8)).contains("rebuilt");
        assertThat(again.status).as(again.err).isZero();
        assertThat(pipeline.apiBean(ThreadStore.class).history(threadId)).hasSize(4);
        var third = client.stream("assistant", threadId, ApiClient.body("who am i"));
        assertThat(third.status()).isEqualTo(200);
        assertThat(Transcript.of(third.events()).runEnd().output()).isEqualTo("Echo #3: who am i");
        assertThat(pipeline.apiBean(ThreadStore.class).history(threadId))
                .extracting(m -> m.role() + ":" + m.content())
                .containsExactly("USER:remember me", "ASSISTANT:Echo #1: remember me", "USER:and me",
                        "ASSISTANT:Echo #2: and me", "USER:who am i", "ASSISTANT:Echo #3: who am i");
    }

    @Test
    void aRunThatWaitsForAPersonIsShownByReplayAndRestoredByARebuildAndThenGoesOnWhenDecided() throws Exception {
        WaitingRun paused = waitingRun();
        AgentDefinition approver = paused.agent();
        String threadId = paused.threadId();
        String runId = paused.runId();
        String callId = paused.callId();

        Cli pretty = cli("replay", "--thread", threadId, "--format", "pretty");
        assertThat(new String(pretty.out, StandardCharsets.UTF_8)).contains("approval_required", "waits for a decision on calculator");

        pipeline.redis().sync().flushall();
        pipeline.apiBean(Bootstrap.class).afterSingletonsInstantiated();
        pipeline.apiBean(AgentCatalog.class).put(pipeline.projectId, approver);
        String group = (String) pipeline.properties().get("agentrun.kafka.relay-group");
        Cli rebuilt = cli("rebuild-state", "--relay-group", group, "--force");
        assertThat(rebuilt.status).as(rebuilt.err).isZero();

        JsonNode waiting = CODEC.read(client.get("/api/v1/runs/" + runId).body(), JsonNode.class);
        assertThat(waiting.get("status").asString()).isEqualTo("waiting");
        assertThat(waiting.at("/pending_approval/tool_call_id").asString()).isEqualTo(callId);
        HttpResponse<String> decided = client.exchange("POST", "/api/v1/threads/" + threadId + "/runs/" + runId + "/approvals/" + callId,
                Map.of("content-type", "application/json"), "{\"decision\": \"approve\"}");
        assertThat(decided.statusCode()).as(decided.body()).isEqualTo(200);
        ApiClient.StreamResponse rest = client.join(threadId, runId, paused.lastEventId());
        assertThat(rest.events()).as("the resumed run's events: %s", rest.events()).extracting(SseEvent::event)
                .startsWith("approval_decided").contains("tool_end");
        assertThat(CODEC.read(rest.events().getLast().data(), JsonNode.class).at("/data/output").asString())
                .isEqualTo("Tool calculator returned: 42");
    }

    @Test
    void aDeletedThreadStaysDeletedThroughARebuildAndReplayShowsOnlyWhoDeletedItWhen() {
        var kept = client.stream("assistant", null, ApiClient.body("keep me"));
        var first = client.stream("assistant", null, ApiClient.body("erase me"));
        String threadId = first.header("x-thread-id");
        client.stream("assistant", threadId, ApiClient.body("and me"));
        HttpResponse<String> deleted = client.exchange("DELETE", "/api/v1/threads/" + threadId, Map.of(), null);
        assertThat(deleted.statusCode()).as(deleted.body()).isEqualTo(200);

        pipeline.redis().sync().flushall();
        pipeline.apiBean(Bootstrap.class).afterSingletonsInstantiated();
        // The running relay may apply the deletion's record after the FLUSHALL: the rebuild then finds the thread's
        // tombstone before the thread's events (which it skips, so its runs are not indexed). Make that so.
        pipeline.redis().sync().set(RedisKeys.threadDeleted(threadId), "{}");
        String group = (String) pipeline.properties().get("agentrun.kafka.relay-group");
        Cli rebuilt = cli("rebuild-state", "--relay-group", group, "--force");
        Cli replay = cli("replay", "--thread", threadId, "--format", "jsonl");
        HttpResponse<String> admin = new ApiClient(pipeline.api(0), Map.of("Authorization", "Bearer " + pipeline.adminToken))
                .get("/admin/v1/threads/" + threadId + "/events");

        assertThat(rebuilt.status).as(rebuilt.err).isZero();
        assertThat(new String(rebuilt.out, StandardCharsets.UTF_8)).contains("1 thread deletions applied");
        assertThat(client.get("/api/v1/threads/" + threadId).statusCode()).isEqualTo(404);
        assertThat(client.get("/api/v1/runs/" + first.header("x-run-id")).statusCode()).isEqualTo(404);
        assertThat(pipeline.redis().sync().hget(RedisKeys.run(first.header("x-run-id")), "output")).isNull();
        assertThat(pipeline.redis().sync().exists(RedisKeys.runEvents(first.header("x-run-id")))).isZero();
        assertThat(pipeline.apiBean(ThreadStore.class).history(threadId)).isEmpty();
        assertThat(pipeline.apiBean(ThreadStore.class).history(kept.header("x-thread-id"))).hasSize(2);
        assertThat(replay.status).as(replay.err).isZero();
        assertThat(replay.out).isEmpty();
        assertThat(replay.err).contains("was deleted at").contains(" by ").doesNotContain("erase me");
        assertThat(admin.statusCode()).isEqualTo(410);
        assertThat(admin.body()).contains("thread_deleted").contains("was deleted at").doesNotContain("erase me");
    }

    @Test
    void aRunWaitingForAPersonOnADeletedThreadIsRefusedADecisionAndComesBackFromNoRebuild() throws Exception {
        WaitingRun waiting = waitingRun();
        AgentDefinition approver = waiting.agent();
        String threadId = waiting.threadId();
        String runId = waiting.runId();
        String callId = waiting.callId();
        String decision = "/api/v1/threads/" + threadId + "/runs/" + runId + "/approvals/" + callId;

        HttpResponse<String> deleted = client.exchange("DELETE", "/api/v1/threads/" + threadId, Map.of(), null);
        assertThat(deleted.statusCode()).as(deleted.body()).isEqualTo(200);
        assertThat(pipeline.redis().sync().hmget(RedisKeys.run(runId), "checkpoint", "approval", "status", "error_code"))
                .extracting(kv -> kv.getValueOrElse(null)).containsExactly(null, null, "cancelled", "thread_deleted");
        assertThat(client.exchange("POST", decision, Map.of("content-type", "application/json"), "{\"decision\": \"approve\"}")
                .statusCode()).as("a decision after the deletion").isEqualTo(404);

        pipeline.redis().sync().flushall();
        pipeline.apiBean(Bootstrap.class).afterSingletonsInstantiated();
        pipeline.apiBean(AgentCatalog.class).put(pipeline.projectId, approver);
        pipeline.redis().sync().set(RedisKeys.threadDeleted(threadId), "{}"); // as the running relay may have, after the FLUSHALL
        String group = (String) pipeline.properties().get("agentrun.kafka.relay-group");
        Cli rebuilt = cli("rebuild-state", "--relay-group", group, "--force");

        assertThat(rebuilt.status).as(rebuilt.err).isZero();
        assertThat(client.get("/api/v1/runs/" + runId).statusCode()).isEqualTo(404);
        assertThat(pipeline.redis().sync().hmget(RedisKeys.run(runId), "checkpoint", "approval", "output_json"))
                .as("what the person was to decide on, and the conversation so far").allMatch(kv -> !kv.hasValue());
        assertThat(pipeline.redis().sync().exists(RedisKeys.runEvents(runId))).isZero();
        assertThat(client.exchange("POST", decision, Map.of("content-type", "application/json"), "{\"decision\": \"approve\"}")
                .statusCode()).as("a decision after the rebuild").isEqualTo(404);
    }

    /** A run of the "approver" agent (put in the catalog) that waits for a person's decision on a calculator call. */
    private WaitingRun waitingRun() throws Exception {
        AgentDefinition approver = TestData.anAgent().id("approver").approvalRequired(Duration.ofHours(1), "calculator").build();
        pipeline.apiBean(AgentCatalog.class).put(pipeline.projectId, approver);
        HttpResponse<InputStream> opened = client.openStream("approver", null, ApiClient.body("/tool calculator {\"expression\": \"6*7\"}"));
        List<SseEvent> before = ApiClient.readUntil(opened.body(), e -> !"approval_required".equals(e.event()));
        opened.body().close();
        return new WaitingRun(approver, opened.headers().firstValue("x-thread-id").orElseThrow(),
                opened.headers().firstValue("x-run-id").orElseThrow(),
                CODEC.read(before.getLast().data(), JsonNode.class).at("/data/tool_call_id").asString(), before.getLast().id());
    }

    /** @param lastEventId the id of its approval_required event, where a client that joins it goes on from */
    private record WaitingRun(AgentDefinition agent, String threadId, String runId, String callId, String lastEventId) {
    }

    /** The response's bytes as the client received them, without keepalive comments (they carry no event). */
    private static byte[] eventBytes(HttpResponse<InputStream> response) throws Exception {
        try (InputStream body = response.body()) {
            assertThat(response.statusCode()).isEqualTo(200);
            String raw = new String(body.readAllBytes(), StandardCharsets.UTF_8);
            return raw.replace(": keepalive\n\n", "").getBytes(StandardCharsets.UTF_8);
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] all = new byte[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    record Cli(int status, byte[] out, String err) {
    }

    /** A following command (replay --follow, tail) on its own thread, stopped the way Ctrl-C stops it. */
    record Running(OpsCli cli, ByteArrayOutputStream buffer, java.util.concurrent.CompletableFuture<Integer> status) {
        static Running start(String... args) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            OpsCli cli = new OpsCli(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(new ByteArrayOutputStream()));
            return new Running(cli, out, java.util.concurrent.CompletableFuture.supplyAsync(() -> cli.run(withInfrastructure(args))));
        }

        String out() {
            synchronized (buffer) {
                return buffer.toString(StandardCharsets.UTF_8);
            }
        }

        boolean started() {
            return cli.following();
        }

        int stop() throws Exception {
            cli.stop();
            return status.get(30, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    private static String[] withInfrastructure(String... args) {
        Map<String, Object> p = pipeline.properties();
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--bootstrap-servers", (String) p.get("spring.kafka.bootstrap-servers"),
                "--events-topic", (String) p.get("agentrun.kafka.events-topic"),
                "--redis-url", pipeline.redisUrl()));
        return all.toArray(String[]::new);
    }

    private static Cli cli(String... args) {
        String[] all = withInfrastructure(args);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = new OpsCli(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(all);
        return new Cli(status, out.toByteArray(), err.toString(StandardCharsets.UTF_8));
    }
}
