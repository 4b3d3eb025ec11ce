package io.agentrun.worker.mcp;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.egress.DestinationGuard;
import io.agentrun.platform.jsonschema.AnswerSchemas;
import io.agentrun.platform.mcp.McpServerStore;
import io.agentrun.platform.mcp.McpSettings;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapperSupplier;
import java.time.Clock;
import java.util.concurrent.Executors;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.util.Timeout;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/** Remote MCP tools: one HTTP client for every server (its DNS resolver the destination guard), one link per server. */
@Configuration(proxyBeanMethods = false)
class McpConfiguration {

    /** Connections to MCP servers a worker keeps at most, and to one server. */
    private static final int MAX_CONNECTIONS = 256;
    private static final int MAX_CONNECTIONS_PER_SERVER = 64;

    @Bean(destroyMethod = "close")
    McpToolbox mcpToolbox(McpServerStore store, McpSettings settings, JsonCodec codec) {
        CloseableHttpClient http = HttpClients.custom()
                .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                        .setDnsResolver(new DestinationGuard(settings.allowedNetworks()).dnsResolver())
                        .setMaxConnTotal(MAX_CONNECTIONS)
                        .setMaxConnPerRoute(MAX_CONNECTIONS_PER_SERVER)
                        .setDefaultConnectionConfig(ConnectionConfig.custom().setConnectTimeout(Timeout.of(settings.connectTimeout())).build())
                        .build())
                .disableRedirectHandling()
                .disableAutomaticRetries()
                .disableCookieManagement()
                .setUserAgent("agentrun-mcp/1")
                .build();
        // Each request blocks a virtual thread while it waits for the server, as the rest of a run does.
        Scheduler scheduler = Schedulers.fromExecutorService(Executors.newVirtualThreadPerTaskExecutor(), "mcp");
        return new McpToolbox(store, settings, http, new JacksonMcpJsonMapperSupplier().get(), scheduler,
                new AnswerSchemas(AnswerSchemas.DEFAULT_MAX_BYTES * 4, AnswerSchemas.DEFAULT_MAX_DEPTH), codec, Clock.systemUTC());
    }
}
