package io.agentrun.api.demo;

import io.agentrun.api.bootstrap.Bootstrap;
import io.agentrun.api.security.Surfaces;
import io.agentrun.model.mcp.NewMcpServer;
import io.agentrun.platform.mcp.McpServerStore;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapperSupplier;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.server.transport.HttpServletStreamableServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/**
 * A small shop's MCP server for {@code ./agentrun local}: the MCP Java SDK's server over Streamable HTTP at
 * {@code /demo/mcp} on the api's port, with {@code lookup_order} and {@code refund_order}. Once the api listens, it is
 * registered in the seeded project as MCP server {@code shop} (its URL updated when the api's port changed), so the agent
 * {@code shopper} of agents.yml can call it. Off unless {@code agentrun.demo.mcp-server}; a deployment never runs it.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty("agentrun.demo.mcp-server")
class DemoMcpConfiguration {

    private static final Logger log = LoggerFactory.getLogger(DemoMcpConfiguration.class);
    static final String PATH = "/demo/mcp";
    private static final String ORDER_ID = """
            {"type":"object","properties":{"order_id":{"type":"string","pattern":"^ORD-[0-9]{4}$","description":"e.g. ORD-1001"}"""
            .strip();

    @Bean
    HttpServletStreamableServerTransportProvider demoMcpTransport() {
        return HttpServletStreamableServerTransportProvider.builder().jsonMapper(json()).mcpEndpoint(PATH).build();
    }

    @Bean(destroyMethod = "close")
    McpSyncServer demoMcpServer(HttpServletStreamableServerTransportProvider transport) {
        AtomicInteger refunds = new AtomicInteger();
        McpJsonMapper json = json();
        return McpServer.sync(transport)
                .serverInfo("agentrun-demo-shop", "1")
                .instructions("A demo shop: look orders up, refund them.")
                .capabilities(McpSchema.ServerCapabilities.builder().tools(true).build())
                .tools(tool(json, "lookup_order", "Looks an order up: its status, items and total.", ORDER_ID + "},\"required\":[\"order_id\"]}",
                                arguments -> McpSchema.CallToolResult.builder()
                                        .addTextContent("Order " + arguments.get("order_id") + ": shipped, 2 items, total 59.90 EUR")
                                        .structuredContent(Map.of("order_id", arguments.get("order_id"), "status", "shipped", "items", 2,
                                                "total_eur", 59.90))
                                        .build()),
                        tool(json, "refund_order", "Refunds an order, in part or whole.", ORDER_ID
                                        + ",\"amount_eur\":{\"type\":\"number\",\"exclusiveMinimum\":0,\"maximum\":59.90},"
                                        + "\"reason\":{\"type\":\"string\"}},\"required\":[\"order_id\",\"amount_eur\"]}",
                                arguments -> McpSchema.CallToolResult.builder()
                                        .addTextContent("Refunded " + arguments.get("amount_eur") + " EUR on " + arguments.get("order_id")
                                                + " (refund RF-" + (1000 + refunds.incrementAndGet()) + ")")
                                        .build()))
                .build();
    }

    @Bean
    ServletRegistrationBean<HttpServletStreamableServerTransportProvider> demoMcpServlet(
            HttpServletStreamableServerTransportProvider transport) {
        ServletRegistrationBean<HttpServletStreamableServerTransportProvider> servlet = new ServletRegistrationBean<>(transport, PATH);
        servlet.setAsyncSupported(true);
        return servlet;
    }

    /** Open, as a demo server on localhost is: agentrun's workers call it like any registered MCP server. */
    @Bean
    @Order(Surfaces.FILES + 1)
    SecurityFilterChain demoMcpSurface(HttpSecurity http) throws Exception {
        return Surfaces.stateless(http).securityMatcher(PATH)
                .authorizeHttpRequests(requests -> requests.anyRequest().permitAll())
                .build();
    }

    @Bean
    ApplicationListener<WebServerInitializedEvent> registerDemoMcpServer(Bootstrap bootstrap, McpServerStore servers) {
        return event -> bootstrap.seededProject().ifPresent(project -> {
            String url = "http://127.0.0.1:" + event.getWebServer().getPort() + PATH;
            if (servers.create(project, new NewMcpServer("shop", url, null, null, null, "the demo shop of ./agentrun local")).isPresent()
                    || servers.find(project, "shop").filter(shop -> !shop.url().equals(url))
                            .flatMap(moved -> servers.update(project, "shop", new NewMcpServer(null, url, null, null, null, null))).isPresent()) {
                log.info("registered the demo MCP server 'shop' ({}) in project '{}'", url, project);
            }
        });
    }

    private static McpServerFeatures.SyncToolSpecification tool(McpJsonMapper json, String name, String description, String schema,
            java.util.function.Function<Map<String, Object>, McpSchema.CallToolResult> result) {
        return McpServerFeatures.SyncToolSpecification.builder()
                .tool(McpSchema.Tool.builder(name, json, schema).description(description).build())
                .callHandler((exchange, request) -> result.apply(request.arguments() == null ? Map.of() : request.arguments()))
                .build();
    }

    private static McpJsonMapper json() {
        return new JacksonMcpJsonMapperSupplier().get();
    }
}
