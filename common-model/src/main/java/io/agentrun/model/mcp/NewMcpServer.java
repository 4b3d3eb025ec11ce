package io.agentrun.model.mcp;

import io.agentrun.model.webhook.NewWebhookEndpoint;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * {@code POST /admin/v1/projects/{project}/mcp-servers} (and, every field but {@code id} optional, {@code PATCH
 * …/mcp-servers/{id}}).
 *
 * @param id           how agent definitions name the server: lowercase letters, digits, '_' or '-', 1–32; required
 * @param url          the server's Streamable HTTP endpoint: an absolute http(s) URL without credentials or fragment
 * @param headers      sent with every request to the server (e.g. {@code Authorization}); stored encrypted, never shown
 *                     again; a PATCH that gives headers replaces all of them
 * @param allowedTools the only tools of the server agents may use; {@code null} = every tool it lists
 * @param callTimeout  how long one tool call may take (1 s – 10 min); {@code null} = 30 s
 */
public record NewMcpServer(@Nullable String id, @Nullable String url, @Nullable Map<String, String> headers,
        @Nullable List<String> allowedTools, @Nullable Duration callTimeout, @Nullable String description) {

    public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(30);
    private static final Pattern ID = Pattern.compile("[a-z][a-z0-9_-]{0,31}");
    /** What every provider accepts as a tool name (OpenAI: 64 of these); MCP allows more, agents can use only these. */
    public static final Pattern TOOL_NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");
    private static final Pattern HEADER_NAME = Pattern.compile("[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}");
    /** Headers the client itself sets; a registration cannot override them. */
    private static final Set<String> RESERVED = Set.of("host", "content-type", "content-length", "accept", "mcp-session-id",
            "mcp-protocol-version", "connection", "transfer-encoding", "cache-control");
    private static final int MAX_HEADERS = 16;
    private static final int MAX_HEADER_VALUE = 4096;
    private static final int MAX_TOOLS = 256;
    private static final int MAX_DESCRIPTION = 200;

    public NewMcpServer {
        require(id == null || ID.matcher(id).matches(), "id must be 1–32 lowercase letters, digits, '_' or '-', starting with a letter");
        if (url != null) {
            NewWebhookEndpoint.checkUrl(url); // the same rules as every address agentrun calls
        }
        if (headers != null) {
            require(headers.size() <= MAX_HEADERS, "headers: at most " + MAX_HEADERS);
            Map<String, String> copy = new LinkedHashMap<>();
            headers.forEach((name, value) -> {
                require(name != null && HEADER_NAME.matcher(name).matches(), "headers: a header name is not a valid HTTP token");
                require(!RESERVED.contains(name.toLowerCase(Locale.ROOT)), "headers: " + name + " is set by agentrun itself");
                // The value is a secret: the message says what is wrong with it, never what it is.
                require(value != null && value.length() <= MAX_HEADER_VALUE && value.chars().noneMatch(c -> c < 0x20 && c != '\t' || c == 0x7f),
                        "headers: the value of " + name + " must be at most " + MAX_HEADER_VALUE + " visible characters");
                copy.put(name, value);
            });
            headers = Map.copyOf(copy);
        }
        if (allowedTools != null) {
            require(allowedTools.size() <= MAX_TOOLS, "allowed_tools: at most " + MAX_TOOLS);
            for (String tool : allowedTools) {
                require(tool != null && TOOL_NAME.matcher(tool).matches(), "allowed_tools: names of 1–64 letters, digits, '_' or '-'");
            }
            allowedTools = allowedTools.stream().distinct().toList();
        }
        require(callTimeout == null || (callTimeout.compareTo(Duration.ofSeconds(1)) >= 0 && callTimeout.compareTo(Duration.ofMinutes(10)) <= 0),
                "call_timeout must be 1s to 10m");
        require(description == null || description.length() <= MAX_DESCRIPTION, "description: at most " + MAX_DESCRIPTION + " characters");
    }

    /** A creation's checks: id and url are required. */
    public NewMcpServer requireForCreation() {
        require(id != null, "id is required");
        require(url != null, "url is required");
        return this;
    }



    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
