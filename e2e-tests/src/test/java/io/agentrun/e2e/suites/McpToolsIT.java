package io.agentrun.e2e.suites;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.worker.fake.TestMcpServer;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

/**
 * Remote MCP tools through the whole pipeline: a real MCP server (the SDK's, over Streamable HTTP) registered with the
 * admin API, an agent that names two of its tools, runs streamed over HTTP whose events show each call and whose answer
 * uses the results; and what goes wrong — destinations that are not public, an agent naming what is not registered,
 * arguments the tool's schema refuses, a 10 MB answer, a server that never answers — each a clear 400 at registration or
 * a {@code tool_end} error in a run that still completes.
 */
@ExtendWith(RealInfrastructure.class)
class McpToolsIT {

    private static final JsonCodec CODEC = new JsonCodec();
    private static final Map<String, String> JSON = Map.of("content-type", "application/json");
    private static final String SECRET = "Bearer mcp-s3cret-9f8e7d";

    static TestMcpServer server;
    static Pipeline pipeline;
    static ApiClient client;
    static ApiClient admin;
    static String servers;

    @BeforeAll
    static void start() {
        server = new TestMcpServer();
        // The test server is on this machine: its network is allowed, as an operator would allow an internal server.
        pipeline = Pipeline.start(1, 1, 1, Map.of("agentrun.mcp.allowed-networks", "127.0.0.0/8"));
        client = new ApiClient(pipeline.api(0), pipeline.projectId, pipeline.apiKey);
        admin = new ApiClient(pipeline.api(0), Map.of("Authorization", "Bearer " + pipeline.adminToken));
        servers = "/admin/v1/projects/" + pipeline.projectId + "/mcp-servers";
        HttpResponse<String> registered = admin.exchange("POST", servers, JSON, """
                {"id": "orders", "url": "%s", "headers": {"Authorization": "%s"}, "call_timeout": "2s",
                 "description": "the order system"}""".formatted(server.url(), SECRET));
        assertThat(registered.statusCode()).as(registered.body()).isEqualTo(201);
        putAgent("clerk", "{\"server\": \"orders\", \"tools\": [\"lookup_order\", \"add_note\", \"huge\", \"hang\"]}");
    }

    @AfterAll
    static void stop() {
        if (pipeline != null) {
            pipeline.close();
        }
        server.close();
    }

    @Test
    void anAgentUsesTwoToolsOfTheServerAndItsAnswerUsesTheirResults() {
        int lookups = server.calls("lookup_order");
        int notes = server.calls("add_note");

        ApiClient.StreamResponse stream = client.stream("clerk", null, ApiClient.body(
                "/tool lookup_order {\"order_id\": \"ORD-7\"} ;; add_note {\"order_id\": \"ORD-7\", \"text\": \"customer called\"}"));

        assertThat(stream.status()).isEqualTo(200);
        List<JsonNode> starts = data(stream, "tool_start");
        List<JsonNode> ends = data(stream, "tool_end");
        assertThat(starts).extracting(e -> e.get("name").asString()).containsExactly("lookup_order", "add_note");
        assertThat(starts.getFirst().at("/arguments/order_id").asString()).isEqualTo("ORD-7");
        assertThat(ends).extracting(e -> e.get("is_error").asBoolean()).containsExactly(false, false);
        assertThat(ends.get(0).get("output").asString()).startsWith("Order ORD-7: shipped, 2 items").contains("\"status\":\"shipped\"");
        assertThat(ends.get(1).get("output").asString()).isEqualTo("Noted on ORD-7: customer called");
        JsonNode end = data(stream, "run_end").getFirst();
        assertThat(end.get("status").asString()).isEqualTo("completed");
        assertThat(end.get("output").asString()).startsWith("Tool lookup_order returned: Order ORD-7: shipped, 2 items")
                .contains("Tool add_note returned: Noted on ORD-7: customer called");
        assertThat(server.calls("lookup_order")).isEqualTo(lookups + 1);
        assertThat(server.calls("add_note")).isEqualTo(notes + 1);
        assertThat(server.requestHeaders().getLast()).containsEntry("authorization", SECRET);
        assertThat(stream.body()).as("the server's secret header never reaches a client").doesNotContain("s3cret");
    }

    @Test
    void theRegistrationShowsHeaderNamesNeverTheirValues() {
        HttpResponse<String> listed = admin.exchange("GET", servers, Map.of(), null);
        HttpResponse<String> one = admin.exchange("GET", servers + "/orders", Map.of(), null);

        assertThat(listed.statusCode()).isEqualTo(200);
        assertThat(listed.body()).contains("\"header_names\":[\"Authorization\"]").doesNotContain("s3cret");
        JsonNode view = CODEC.read(one.body(), JsonNode.class);
        assertThat(view.get("url").asString()).isEqualTo(server.url());
        assertThat(java.time.Duration.parse(view.get("call_timeout").asString())).isEqualTo(java.time.Duration.ofSeconds(2));
        assertThat(one.body()).doesNotContain("s3cret");
    }

    @Test
    void argumentsTheSchemaRefusesAHugeAnswerAndASilentServerAreToolErrorsAndTheRunCompletes() {
        int lookups = server.calls("lookup_order");

        ApiClient.StreamResponse stream = client.stream("clerk", null, ApiClient.body(
                "/tool lookup_order {\"order_id\": \"seven\"} ;; huge {} ;; hang {}"));

        List<JsonNode> ends = data(stream, "tool_end");
        assertThat(ends).extracting(e -> e.get("is_error").asBoolean()).containsExactly(true, true, true);
        assertThat(ends.get(0).get("output").asString()).contains("do not match the input schema of 'lookup_order'");
        assertThat(ends.get(1).get("output").asString()).contains("longer than");
        assertThat(ends.get(2).get("output").asString()).contains("did not answer within 2 s");
        assertThat(data(stream, "run_end").getFirst().get("status").asString()).isEqualTo("completed");
        assertThat(server.calls("lookup_order")).as("refused arguments are never sent").isEqualTo(lookups);
    }

    @Test
    void destinationsThatAreNotPublicAreRefusedAtRegistration() {
        for (String url : List.of("http://169.254.169.254/latest/meta-data", "http://10.1.2.3/mcp", "http://[fd00::1]/mcp",
                "http://100.64.0.1/mcp")) {
            HttpResponse<String> refused = admin.exchange("POST", servers, JSON, "{\"id\": \"bad\", \"url\": \"" + url + "\"}");
            assertThat(refused.statusCode()).as(url).isEqualTo(400);
            assertThat(refused.headers().firstValue("content-type")).hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
            assertThat(refused.body()).contains("\"code\":\"invalid_request\"").contains("not a public address");
        }
        assertThat(admin.exchange("GET", servers + "/bad", Map.of(), null).statusCode()).isEqualTo(404);
    }

    @Test
    void badRegistrationsAndAgentsNamingWhatIsNotRegisteredAreRefused() {
        assertProblem(admin.exchange("POST", servers, JSON, "{\"id\": \"orders\", \"url\": \"" + server.url() + "\"}"), 409, "already_exists");
        assertProblem(admin.exchange("POST", servers, JSON, "{\"id\": \"x\", \"url\": \"ftp://example.com/mcp\"}"), 400, "invalid_request");
        assertProblem(admin.exchange("POST", servers, JSON, "{\"id\": \"Bad Id\", \"url\": \"" + server.url() + "\"}"), 400, "invalid_request");
        assertProblem(admin.exchange("POST", servers, JSON,
                "{\"id\": \"x\", \"url\": \"" + server.url() + "\", \"headers\": {\"Content-Type\": \"text/plain\"}}"), 400, "invalid_request");
        assertProblem(admin.exchange("POST", servers, JSON, "{\"id\": \"x\", \"url\": \"" + server.url() + "\", \"call_timeout\": \"1h\"}"),
                400, "invalid_request");
        HttpResponse<String> unknownServer = putAgentResponse("stray", "{\"server\": \"nowhere\", \"tools\": [\"lookup_order\"]}");
        assertProblem(unknownServer, 400, "invalid_request");
        assertThat(unknownServer.body()).contains("no MCP server 'nowhere'");

        HttpResponse<String> narrow = admin.exchange("POST", servers, JSON,
                "{\"id\": \"narrow\", \"url\": \"" + server.url() + "\", \"allowed_tools\": [\"lookup_order\"]}");
        assertThat(narrow.statusCode()).isEqualTo(201);
        HttpResponse<String> notAllowed = putAgentResponse("stray", "{\"server\": \"narrow\", \"tools\": [\"add_note\"]}");
        assertProblem(notAllowed, 400, "invalid_request");
        assertThat(notAllowed.body()).contains("does not allow [add_note]");
        assertProblem(putAgentResponse("stray", "{\"server\": \"narrow\", \"tools\": [\"calculator\"]}"), 400, "invalid_request");
        assertThat(admin.exchange("DELETE", servers + "/narrow", Map.of(), null).statusCode()).isEqualTo(204);
        assertThat(admin.exchange("DELETE", servers + "/narrow", Map.of(), null).statusCode()).isEqualTo(404);
    }

    @Test
    void theDemoServerOfTheLocalStackRegistersItselfAndServesTheShopper() {
        org.springframework.context.ConfigurableApplicationContext demoApi = pipeline.startApi(Map.of("agentrun.demo.mcp-server", true));
        try {
            JsonNode shop = CODEC.read(admin.exchange("GET", servers + "/shop", Map.of(), null).body(), JsonNode.class);
            assertThat(shop.get("url").asString()).isEqualTo("http://127.0.0.1:" + Pipeline.baseOf(demoApi).getPort() + "/demo/mcp");
            putAgent("shopper", "{\"server\": \"shop\", \"tools\": [\"lookup_order\", \"refund_order\"]}");

            ApiClient.StreamResponse stream = client.stream("shopper", null, ApiClient.body("/tool lookup_order {\"order_id\": \"ORD-1001\"}"));

            assertThat(data(stream, "tool_end").getFirst().get("output").asString()).startsWith("Order ORD-1001: shipped, 2 items");
            assertThat(data(stream, "run_end").getFirst().get("status").asString()).isEqualTo("completed");
        } finally {
            demoApi.close();
        }
    }

    private static void putAgent(String id, String toolset) {
        HttpResponse<String> put = putAgentResponse(id, toolset);
        assertThat(put.statusCode()).as(put.body()).isIn(200, 201);
    }

    private static HttpResponse<String> putAgentResponse(String id, String toolset) {
        return admin.exchange("PUT", "/admin/v1/projects/" + pipeline.projectId + "/agents/" + id, JSON,
                "{\"provider\": \"scripted\", \"tools\": [\"calculator\"], \"mcp_servers\": [" + toolset + "]}");
    }

    private static void assertProblem(HttpResponse<String> response, int status, String code) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.body()).contains("\"code\":\"" + code + "\"");
    }

    private static List<JsonNode> data(ApiClient.StreamResponse stream, String type) {
        return stream.events().stream().filter(e -> type.equals(e.event())).map(e -> CODEC.read(e.data(), JsonNode.class).get("data")).toList();
    }
}
