package io.agentrun.platform.mcp;

import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Remote MCP servers ({@code agentrun.mcp.*}).
 *
 * @param secretKey        base64 of 32 random bytes: encrypts the servers' headers in Redis; the same on every api node
 *                         and worker. Blank: {@code agentrun.webhooks.secret-key} is used. Without either, servers can be
 *                         registered only without headers
 * @param allowedNetworks  CIDR ranges servers may be reached at although they are not public (an internal MCP server, a
 *                         test server on 127.0.0.0/8); nothing by default: loopback, private, link-local and metadata
 *                         addresses are refused at registration and at every connection
 * @param toolListTtl      how long a worker uses a server's tool list before it asks again; a changed list reaches the
 *                         next run after at most this long (a registration's change: at once)
 * @param maxResponseBytes the most a server may answer to one request; a longer answer fails the call
 * @param connectTimeout   to connect to a server
 */
@ConfigurationProperties("agentrun.mcp")
public record McpSettings(
        @DefaultValue("") String secretKey,
        @DefaultValue("") List<String> allowedNetworks,
        @DefaultValue("60s") Duration toolListTtl,
        @DefaultValue("2097152") int maxResponseBytes,
        @DefaultValue("5s") Duration connectTimeout) {

    public McpSettings {
        allowedNetworks = allowedNetworks.stream().filter(n -> !n.isBlank()).map(String::strip).toList();
        if (maxResponseBytes < 1024) {
            throw new IllegalArgumentException("agentrun.mcp.max-response-bytes must be at least 1024");
        }
    }
}
