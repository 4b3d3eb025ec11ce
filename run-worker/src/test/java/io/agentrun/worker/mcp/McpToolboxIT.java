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
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
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
