package io.agentrun.worker.fake;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapperSupplier;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;

/**
 * A real MCP server for tests: the MCP Java SDK's server over Streamable HTTP ({@code /mcp}), in an embedded Tomcat on
 * a free loopback port. Its tools:
 * <ul>
 *   <li>{@code lookup_order} {@code {order_id}} (a string {@code ORD-} + digits): text {@code Order <id>: shipped, 2
 *       items} and the same as structured content;</li>
 *   <li>{@code add_note} {@code {order_id, text}}: {@code Noted on <id>: <text>};</li>
 *   <li>{@code huge}: a text of {@link #HUGE_BYTES} bytes; {@code hang}: answers only when interrupted (server stop);
 *       {@code broken}: a tool error ({@code isError}).</li>
 * </ul>
 * It counts calls per tool and records the headers of every request. A call that carries agentrun's idempotency key
 * ({@code _meta["io.agentrun/idempotency-key"]}) is done once per key, as a server with side effects would: a repeat
 * answers what the first did ({@link #executions} counts what was done, {@link #calls} every call received). {@code /garbage} answers every POST with a body
 * that is not JSON, as a broken server would.
 */
public final class TestMcpServer implements AutoCloseable {

    public static final int HUGE_BYTES = 10 * 1024 * 1024;

    private final Tomcat tomcat = new Tomcat();
    private final McpSyncServer server;
    private final Map<String, AtomicInteger> calls;
    private final Map<String, Map<String, McpSchema.CallToolResult>> done;
    private final List<Map<String, String>> requestHeaders = new CopyOnWriteArrayList<>();
    private final int port;
    private final McpJsonMapper json = new JacksonMcpJsonMapperSupplier().get();

    public TestMcpServer() {
        this(0, new ConcurrentHashMap<>(), new ConcurrentHashMap<>());
    }

    /**
     * This server stopped and a new one started on its port, as a redeploy does: the new one knows none of the sessions,
     * and (as a server that honours idempotency keys durably) keeps the record of the calls done.
     */
    public TestMcpServer restarted() {
        close();
        return new TestMcpServer(port, calls, done);
    }

    private TestMcpServer(int port, Map<String, AtomicInteger> calls, Map<String, Map<String, McpSchema.CallToolResult>> done) {
        this.calls = calls;
        this.done = done;
        McpJsonMapper json = new JacksonMcpJsonMapperSupplier().get();
        HttpServletStreamableServerTransportProvider transport = HttpServletStreamableServerTransportProvider.builder()
                .jsonMapper(json).mcpEndpoint("/mcp").build();
        server = McpServer.sync(transport)
                .serverInfo("agentrun-test", "1")
                .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
                .tools(tool(json, "lookup_order", "Looks an order up by its id.", """
                                {"type":"object","properties":{"order_id":{"type":"string","pattern":"^ORD-[0-9]+$"}},
                                 "required":["order_id"],"additionalProperties":false}""",
                                arguments -> {
                                    String id = (String) arguments.get("order_id");
                                    return McpSchema.CallToolResult.builder()
                                            .addTextContent("Order " + id + ": shipped, 2 items")
                                            .structuredContent(Map.of("order_id", id, "status", "shipped", "items", 2)).build();
                                }),
                        tool(json, "add_note", "Adds a note to an order.", """
                                {"type":"object","properties":{"order_id":{"type":"string"},"text":{"type":"string"}},
                                 "required":["order_id","text"]}""",
                                arguments -> text("Noted on " + arguments.get("order_id") + ": " + arguments.get("text"))),
                        tool(json, "slow_note", "Adds a note, taking 400 ms.", "{\"type\":\"object\"}", arguments -> {
                            try {
                                Thread.sleep(400); // a call still running when the server is restarted
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                            return text("noted slowly");
                        }),
                        tool(json, "huge", "Returns a very long text.", "{\"type\":\"object\"}",
                                arguments -> text("x".repeat(HUGE_BYTES))),
                        tool(json, "hang", "Never answers.", "{\"type\":\"object\"}", arguments -> {
                            try {
                                Thread.sleep(Long.MAX_VALUE);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                            return text("woke up");
                        }),
                        tool(json, "broken", "Always fails.", "{\"type\":\"object\"}",
                                arguments -> McpSchema.CallToolResult.builder().addTextContent("the order system is down").isError(true).build()))
                .build();
        tomcat.setBaseDir(System.getProperty("java.io.tmpdir") + "/agentrun-test-mcp-" + ProcessHandle.current().pid() + "-" + System.nanoTime());
        Connector connector = new Connector();
        connector.setPort(port);
        connector.setProperty("address", "127.0.0.1");
        tomcat.setConnector(connector);
        Context context = tomcat.addContext("", null);
        Tomcat.addServlet(context, "mcp", new Recording(transport)).setAsyncSupported(true);
        context.addServletMappingDecoded("/mcp", "mcp");
        context.addServletMappingDecoded("/mcp/*", "mcp");
        Tomcat.addServlet(context, "garbage", new Garbage());
        context.addServletMappingDecoded("/garbage", "garbage");
        try {
            tomcat.start();
        } catch (LifecycleException e) {
            throw new IllegalStateException("the test MCP server did not start", e);
        }
        this.port = tomcat.getConnector().getLocalPort();
    }

    /** {@code http://127.0.0.1:<port>/mcp}. */
    public String url() {
        return "http://127.0.0.1:" + port + "/mcp";
    }

    /** An endpoint that answers with a body that is not JSON. */
    public String garbageUrl() {
        return "http://127.0.0.1:" + port + "/garbage";
    }

    public int port() {
        return port;
    }

    /** Calls of {@code tool} so far. */
    public int calls(String tool) {
        AtomicInteger count = calls.get(tool);
        return count == null ? 0 : count.get();
    }

    /** Adds a tool that answers {@code answer}, as a server whose tools change while it runs. */
    public void addTool(String name, String answer) {
        server.addTool(tool(json, name, "Added while the server ran.", "{\"type\":\"object\"}", arguments -> text(answer)));
    }

    /** Calls of {@code tool} done: one per idempotency key (and one per call without a key). */
    public int executions(String tool) {
        Map<String, McpSchema.CallToolResult> byKey = done.get(tool);
        return byKey == null ? 0 : byKey.size();
    }

    /** The idempotency keys of the calls of {@code tool} done ({@code <run id>/<tool call id>}). */
    public java.util.Set<String> executedKeys(String tool) {
        Map<String, McpSchema.CallToolResult> byKey = done.get(tool);
        return byKey == null ? java.util.Set.of() : java.util.Set.copyOf(byKey.keySet());
    }

    /** The entry of {@link #requestHeaders} that holds the request's method, which no header name can be. */
    public static final String METHOD = ":method";

    /** The headers of every request received, lower-case names, and its {@link #METHOD}. */
    public List<Map<String, String>> requestHeaders() {
        return List.copyOf(requestHeaders);
    }

    private McpServerFeatures.SyncToolSpecification tool(McpJsonMapper json, String name, String description, String schema,
            java.util.function.Function<Map<String, Object>, McpSchema.CallToolResult> handler) {
        return McpServerFeatures.SyncToolSpecification.builder()
                .tool(McpSchema.Tool.builder(name, json, schema).description(description).build())
                .callHandler((exchange, request) -> {
                    calls.computeIfAbsent(name, n -> new AtomicInteger()).incrementAndGet();
                    Object key = request.meta() == null ? null : request.meta().get("io.agentrun/idempotency-key");
                    Map<String, Object> arguments = request.arguments() == null ? Map.of() : request.arguments();
                    if (key == null) {
                        done.computeIfAbsent(name, n -> new ConcurrentHashMap<>()).put("unkeyed-" + System.nanoTime(), text("done"));
                        return handler.apply(arguments);
                    }
                    return done.computeIfAbsent(name, n -> new ConcurrentHashMap<>()).computeIfAbsent(key.toString(),
                            k -> handler.apply(arguments));
                })
                .build();
    }

    private static McpSchema.CallToolResult text(String text) {
        return McpSchema.CallToolResult.builder().addTextContent(text).build();
    }

    /** Records each request's headers, then hands it to the SDK's servlet. */
    private final class Recording extends HttpServlet {
        private final HttpServlet mcp;

        Recording(HttpServlet mcp) {
            this.mcp = mcp;
        }

        @Override
        protected void service(HttpServletRequest request, HttpServletResponse response) throws jakarta.servlet.ServletException, IOException {
            Map<String, String> headers = new java.util.TreeMap<>();
            request.getHeaderNames().asIterator().forEachRemaining(name -> headers.put(name.toLowerCase(java.util.Locale.ROOT), request.getHeader(name)));
            headers.put(METHOD, request.getMethod());
            requestHeaders.add(headers);
            mcp.service(request, response);
        }

        @Override
        public void init(jakarta.servlet.ServletConfig config) throws jakarta.servlet.ServletException {
            super.init(config);
            mcp.init(config);
        }
    }

    private static final class Garbage extends HttpServlet {
        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            request.getInputStream().readAllBytes();
            response.setContentType("application/json");
            response.getOutputStream().write("{\"jsonrpc\": \"2.0\", \"id\": oops".getBytes(StandardCharsets.UTF_8));
        }
    }

    @Override
    public void close() {
        server.close();
        try {
            tomcat.stop();
            tomcat.destroy();
        } catch (LifecycleException e) {
            throw new IllegalStateException(e);
        }
    }
}
