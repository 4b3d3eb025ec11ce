package io.agentrun.worker.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.model.mcp.NewMcpServer;
import io.agentrun.model.testing.TestData;
import io.agentrun.platform.mcp.McpServerStore;
import io.agentrun.platform.mcp.McpSettings;
import io.agentrun.platform.redis.RedisConnections;
import io.agentrun.platform.secret.SecretBox;
import io.agentrun.worker.fake.TestMcpServer;
import io.agentrun.worker.tool.Tool;
import io.agentrun.worker.tool.ToolException;
import io.agentrun.worker.tool.ToolInvocation;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

/** The run's MCP tools against a real MCP server (the SDK's, over Streamable HTTP) and registrations in a real Redis. */
@ExtendWith(RealInfrastructure.class)
class McpToolboxIT {

    private static final JsonCodec CODEC = new JsonCodec();
    private static RedisConnections redis;
    private static TestMcpServer server;
    private static McpServerStore store;

    @BeforeAll
    static void start() {
        redis = RedisConnections.connect(RealInfrastructure.redisUrl());
        server = new TestMcpServer();
        byte[] key = new byte[32];
        store = new McpServerStore(redis, CODEC, new SecretBox(Base64.getEncoder().encodeToString(key), "test key"), Clock.systemUTC());
    }

    @AfterAll
    static void stop() {
        server.close();
        redis.close();
    }

    @Test
    void offersTheServersToolsWithItsSchemasAndCallsThemWithTheRegisteredHeaders() throws Exception {
        String project = register("orders", server.url(), Map.of("Authorization", "Bearer s3cret-token"), null);
        try (McpToolbox toolbox = toolbox(loopbackAllowed())) {
            int before = server.requestHeaders().size();
            List<Tool> tools = toolbox.toolsFor(project, agent("orders", "lookup_order", "add_note"));

            assertThat(tools).extracting(Tool::name).containsExactly("lookup_order", "add_note");
            assertThat(tools.getFirst().description()).isEqualTo("Looks an order up by its id.");
            assertThat(tools.getFirst().parameters().at("/properties/order_id/pattern").asString()).isEqualTo("^ORD-[0-9]+$");
            assertThat(tools.getFirst().callTimeout()).contains(NewMcpServer.DEFAULT_CALL_TIMEOUT);

            String looked = tools.get(0).execute(invocation(project, "{\"order_id\":\"ORD-7\"}"));
            String noted = tools.get(1).execute(invocation(project, "{\"order_id\":\"ORD-7\",\"text\":\"call back\"}"));

            assertThat(looked).startsWith("Order ORD-7: shipped, 2 items").contains("\"status\":\"shipped\"");
            assertThat(noted).isEqualTo("Noted on ORD-7: call back");
            assertThat(server.requestHeaders().subList(before, server.requestHeaders().size())).hasSizeGreaterThanOrEqualTo(4)
                    .allSatisfy(headers -> assertThat(headers).containsEntry("authorization", "Bearer s3cret-token"));
        }
    }

    @Test
    void argumentsThatFailTheInputSchemaNeverReachTheServer() throws Exception {
        String project = register("orders", server.url(), Map.of(), null);
        try (McpToolbox toolbox = toolbox(loopbackAllowed())) {
            Tool lookup = toolbox.toolsFor(project, agent("orders", "lookup_order")).getFirst();
            int before = server.calls("lookup_order");

            assertThatThrownBy(() -> lookup.execute(invocation(project, "{\"order_id\":\"seven\"}")))
                    .isInstanceOf(ToolException.class).hasMessageContaining("do not match the input schema").hasMessageContaining("order_id");
            assertThatThrownBy(() -> lookup.execute(invocation(project, "{\"order_id\":\"ORD-1\",\"extra\":1}")))
                    .isInstanceOf(ToolException.class).hasMessageContaining("extra");
            assertThat(server.calls("lookup_order")).isEqualTo(before);
        }
    }

    @Test
    void aHugeAnswerAToolErrorAndASilentServerEachBecomeAToolError() throws Exception {
        String project = register("orders", server.url(), Map.of(), Duration.ofSeconds(1));
        // The huge answer is refused for its size: given time enough to arrive on a loaded machine (2 MiB took over
        // 1 s in a CI run beside the e2e suites), it must not end as a timeout instead.
        String patient = register("orders", server.url(), Map.of(), Duration.ofSeconds(30));
        try (McpToolbox toolbox = toolbox(loopbackAllowed())) {
            List<Tool> tools = toolbox.toolsFor(project, agent("orders", "broken", "hang"));
            Tool huge = toolbox.toolsFor(patient, agent("orders", "huge")).getFirst();

            assertThatThrownBy(() -> huge.execute(invocation(patient, "{}")))
                    .isInstanceOf(ToolException.class).hasMessageContaining("longer than 2097152 bytes");
            assertThatThrownBy(() -> tools.get(0).execute(invocation(project, "{}")))
                    .isInstanceOf(ToolException.class).hasMessage("the order system is down");
            long began = System.nanoTime();
            assertThatThrownBy(() -> tools.get(1).execute(invocation(project, "{}")))
                    .isInstanceOf(ToolException.class).hasMessageContaining("did not answer within 1 s");
            assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(Duration.ofSeconds(10));
            // The link is still good for the next call.
            assertThatThrownBy(() -> tools.get(0).execute(invocation(project, "{}"))).hasMessage("the order system is down");
        }
    }

    @Test
    void aServerThatAnswersGarbageOrIsNotRegisteredGivesToolsThatSayWhy() throws Exception {
        String project = register("junk", server.garbageUrl(), Map.of(), null);
        try (McpToolbox toolbox = toolbox(loopbackAllowed())) {
            AgentDefinition agent = agent("junk", "anything").withMcpServers(List.of(
                    new io.agentrun.model.mcp.McpToolset("junk", List.of("anything")),
                    new io.agentrun.model.mcp.McpToolset("gone", List.of("other"))));
            List<Tool> tools = toolbox.toolsFor(project, agent);

            assertThat(tools).extracting(Tool::name).containsExactly("anything", "other");
            assertThat(tools.get(0).description()).contains("not a JSON-RPC message");
            assertThat(tools.get(1).description()).contains("no MCP server 'gone'");
            assertThatThrownBy(() -> tools.get(0).execute(invocation(project, "{}"))).isInstanceOf(ToolException.class);
        }
    }

    @Test
    void aLoopbackServerIsRefusedAtConnectionUnlessItsNetworkIsAllowed() throws Exception {
        String project = register("orders", server.url(), Map.of(), null);
        try (McpToolbox toolbox = toolbox(new McpSettings("", List.of(), Duration.ofMinutes(1), 2 * 1024 * 1024, Duration.ofSeconds(2)))) {
            int before = server.requestHeaders().size();
            Tool lookup = toolbox.toolsFor(project, agent("orders", "lookup_order")).getFirst();

            assertThat(lookup.description()).contains("127.0.0.1, which is not a public address");
            assertThat(server.requestHeaders()).hasSize(before);
        }
    }

    @Test
    void aToolTheRegistrationDoesNotAllowIsNotCalledAndAChangedRegistrationTakesEffectAtOnce() throws Exception {
        String project = register("orders", server.url(), Map.of("X-Team", "blue"), null, List.of("lookup_order"));
        try (McpToolbox toolbox = toolbox(loopbackAllowed())) {
            List<Tool> tools = toolbox.toolsFor(project, agent("orders", "lookup_order", "add_note"));
            assertThat(tools.get(1).description()).contains("without 'add_note' in its allowed_tools");

            store.update(project, "orders", new NewMcpServer(null, null, Map.of("X-Team", "green"), List.of("lookup_order", "add_note"), null, null));
            List<Tool> changed = toolbox.toolsFor(project, agent("orders", "lookup_order", "add_note"));
            changed.get(1).execute(invocation(project, "{\"order_id\":\"ORD-2\",\"text\":\"hi\"}"));

            assertThat(server.requestHeaders().getLast()).containsEntry("x-team", "green");
        }
    }

    @Test
    void aToolTheServerAddsReachesTheRunsThatStartOnceTheListIsOlderThanItsTtl() throws Exception {
        String project = register("orders", server.url(), Map.of(), null);
        String name = "added_" + UUID.randomUUID().toString().substring(0, 8);
        McpSettings shortTtl = new McpSettings("", List.of("127.0.0.0/8"), Duration.ofSeconds(3), 2 * 1024 * 1024, Duration.ofSeconds(2));
        try (McpToolbox toolbox = toolbox(shortTtl)) {
            assertThat(toolbox.toolsFor(project, agent("orders", name)).getFirst().description()).contains("does not list");

            server.addTool(name, "fresh");

            assertThat(toolbox.toolsFor(project, agent("orders", name)).getFirst().description())
                    .as("within the TTL a run starts with the list read before").contains("does not list");
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(250))
                    .until(() -> !toolbox.toolsFor(project, agent("orders", name)).getFirst().description().contains("does not list"));
            assertThat(toolbox.toolsFor(project, agent("orders", name)).getFirst().execute(invocation(project, "{}"))).isEqualTo("fresh");
        }
    }

    /**
     * A server restarted between calls and while calls run, three times over: every call succeeds (the call that met the
     * 404 of the forgotten session, the calls that were out when the server stopped, the calls made meanwhile), each is
     * executed once per idempotency key, and nothing tries to end a session the server forgot.
     */
    @Test
    void aRestartedServerLosesNoCallBetweenCallsOrWhileCallsRun() throws Exception {
        TestMcpServer own = new TestMcpServer();
        int calls = 0;
        try (McpToolbox toolbox = toolbox(loopbackAllowed())) {
            String project = register("redeployed", own.url(), Map.of(), Duration.ofSeconds(20));
            List<Tool> tools = toolbox.toolsFor(project, agent("redeployed", "add_note", "slow_note"));
            assertThat(tools.get(0).execute(invocation(project, "{\"order_id\":\"ORD-1\",\"text\":\"a\"}"))).isEqualTo("Noted on ORD-1: a");
            calls++;
            for (int round = 0; round < 3; round++) {
                own = own.restarted(); // between calls: the next calls meet the 404 of a session the server forgot
                assertThat(concurrently(12, i -> () -> tools.get(0).execute(invocation(project, "{\"order_id\":\"ORD-1\",\"text\":\"b" + i + "\"}"))))
                        .as("calls after restart %d", round).allSatisfy(answer -> assertThat(answer).startsWith("Noted on ORD-1: b"));
                calls += 12;

                TestMcpServer stopping = own;
                int before = stopping.calls("slow_note");
                try (var running = Executors.newVirtualThreadPerTaskExecutor()) {
                    List<Future<String>> slow = new ArrayList<>();
                    for (int i = 0; i < 8; i++) {
                        slow.add(running.submit(() -> tools.get(1).execute(invocation(project, "{}"))));
                    }
                    org.awaitility.Awaitility.await("slow calls to reach the server").atMost(Duration.ofSeconds(10))
                            .until(() -> stopping.calls("slow_note") >= before + 4);
                    own = own.restarted(); // while they run
                    for (Future<String> call : slow) {
                        assertThat(call.get(30, TimeUnit.SECONDS)).isEqualTo("noted slowly");
                    }
                }
            }
            assertThat(own.executions("slow_note")).as("executed once per idempotency key").isEqualTo(24);
            assertThat(own.executions("add_note")).isEqualTo(calls);
            assertThat(own.requestHeaders()).as("no session the server forgot is ended there")
                    .noneSatisfy(headers -> assertThat(headers).containsEntry(TestMcpServer.METHOD, "DELETE"));
        } finally {
            own.close();
        }
    }

    @Test
    void aChangedRegistrationEndsTheOldSessionWithItsOwnHeadersUnlessTheHeadersChanged() throws Exception {
        TestMcpServer own = new TestMcpServer();
        try (own; McpToolbox toolbox = toolbox(loopbackAllowed())) {
            String project = register("rotated", own.url(), Map.of("Authorization", "Bearer old"), null);
            toolbox.toolsFor(project, agent("rotated", "add_note")).getFirst().execute(invocation(project, "{\"order_id\":\"ORD-3\",\"text\":\"x\"}"));

            store.update(project, "rotated", new NewMcpServer(null, null, null, null, Duration.ofSeconds(45), null));
            toolbox.toolsFor(project, agent("rotated", "add_note")).getFirst().execute(invocation(project, "{\"order_id\":\"ORD-3\",\"text\":\"y\"}"));
            org.awaitility.Awaitility.await("the old session ended").atMost(Duration.ofSeconds(10))
                    .until(() -> deletes(own).size() == 1);
            assertThat(deletes(own).getFirst()).containsEntry("authorization", "Bearer old");

            store.update(project, "rotated", new NewMcpServer(null, null, Map.of("Authorization", "Bearer new"), null, null, null));
            toolbox.toolsFor(project, agent("rotated", "add_note")).getFirst().execute(invocation(project, "{\"order_id\":\"ORD-3\",\"text\":\"z\"}"));
            assertThat(own.requestHeaders().getLast()).containsEntry("authorization", "Bearer new");
            store.update(project, "rotated", new NewMcpServer(null, null, null, null, Duration.ofSeconds(50), null));
            toolbox.toolsFor(project, agent("rotated", "add_note")).getFirst().execute(invocation(project, "{\"order_id\":\"ORD-3\",\"text\":\"w\"}"));
            org.awaitility.Awaitility.await("the session begun with the new headers ended").atMost(Duration.ofSeconds(10))
                    .until(() -> deletes(own).size() == 2);
            assertThat(deletes(own)).as("the session begun with the old headers is left to expire")
                    .extracting(headers -> headers.get("authorization")).containsExactly("Bearer old", "Bearer new");
        }
    }

    private static List<Map<String, String>> deletes(TestMcpServer server) {
        return server.requestHeaders().stream().filter(headers -> "DELETE".equals(headers.get(TestMcpServer.METHOD))).toList();
    }

    /** {@code count} calls at once; their answers, in order. */
    private static List<String> concurrently(int count, java.util.function.IntFunction<java.util.concurrent.Callable<String>> call) throws Exception {
        List<Future<String>> answers = new ArrayList<>();
        try (var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < count; i++) {
                answers.add(threads.submit(call.apply(i)));
            }
        }
        List<String> got = new ArrayList<>();
        for (Future<String> answer : answers) {
            got.add(answer.get());
        }
        return got;
    }

    private static String register(String id, String url, Map<String, String> headers, Duration timeout) {
        return register(id, url, headers, timeout, null);
    }

    private static String register(String id, String url, Map<String, String> headers, Duration timeout, List<String> allowed) {
        String project = "mcp-" + UUID.randomUUID().toString().substring(0, 8);
        store.create(project, new NewMcpServer(id, url, headers, allowed, timeout, null)).orElseThrow();
        return project;
    }

    private static AgentDefinition agent(String server, String... tools) {
        return TestData.anAgent().mcpServer(server, tools).build();
    }

    private static McpSettings loopbackAllowed() {
        return new McpSettings("", List.of("127.0.0.0/8"), Duration.ofMinutes(1), 2 * 1024 * 1024, Duration.ofSeconds(2));
    }

    private static McpToolbox toolbox(McpSettings settings) {
        return new McpConfiguration().mcpToolbox(store, settings, CODEC);
    }

    private static ToolInvocation invocation(String project, String arguments) {
        JsonNode parsed = CODEC.mapper().readTree(arguments);
        return new ToolInvocation("run_test", "call_" + UUID.randomUUID(), project, parsed, Map.of(), null);
    }
}
