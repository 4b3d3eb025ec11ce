package io.agentrun.model.agent;

import io.agentrun.model.command.ResponseFormat;
import io.agentrun.model.mcp.McpToolset;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A configured agent of a project, stored as JSON in {@code ar:agent:{project}:{agent}} and read on every
 * run, so a change applies to the next run on every worker.
 *
 * @param provider          {@code openai} (and any OpenAI-compatible server), {@code anthropic}, {@code gemini},
 *                          {@code ollama}, or {@code scripted}, the deterministic model for local use and tests; required
 * @param model             the provider's model name; required except for {@code scripted}
 * @param baseUrl           the provider endpoint; {@code null} = the provider's public API
 * @param apiKeyEnv         the name of the environment variable (on workers) that holds the provider key —
 *                          never the key itself; {@code null} for servers that need none
 * @param instructions      the system prompt
 * @param tools             the tools the model may call (allow-list of tool names)
 * @param temperature       sampling temperature, 0–2; {@code null} = the provider's default
 * @param maxOutputTokens   cap of one model turn's output; {@code null} = the provider's default
 *                          (Anthropic requires one: 1024 is used)
 * @param maxToolCalls      tool calls allowed in one run, in total
 * @param runTimeout        time budget of a run; {@code null} = the worker's default
 * @param contextTokenBudget how much of the run's contexts is inlined into the instructions (approximate
 *                          tokens); the rest is reachable through {@code context_search}
 * @param metadataToModel   show the request's metadata to the model (it always reaches tools)
 * @param thinkingBudget    reasoning budget in tokens (Anthropic's extended thinking, Gemini's; Ollama: thinking on); {@code null} = off
 * @param scripted          options of the scripted model
 * @param responseFormat    the JSON Schema answers must match when a run request gives none; {@code null} = text
 * @param mcpServers        tools of the project's registered MCP servers the model may call, per server; their names
 *                          and {@code tools}' are one namespace (no name twice)
 * @param approvals         which of those tools wait for a person's decision before they run
 */
public record AgentDefinition(
        String id,
        String name,
        String provider,
        String model,
        @Nullable String baseUrl,
        @Nullable String apiKeyEnv,
        String instructions,
        List<String> tools,
        @Nullable Double temperature,
        @Nullable Integer maxOutputTokens,
        int maxToolCalls,
        @Nullable Duration runTimeout,
        int contextTokenBudget,
        boolean metadataToModel,
        @Nullable Integer thinkingBudget,
        ScriptedOptions scripted,
        @Nullable ResponseFormat responseFormat,
        List<McpToolset> mcpServers,
        Approvals approvals) {

    public static final Set<String> PROVIDERS = Set.of("openai", "anthropic", "gemini", "ollama", "scripted");
    public static final int DEFAULT_MAX_TOOL_CALLS = 10;
    public static final int DEFAULT_CONTEXT_TOKEN_BUDGET = 2000;

    /** Offered on its own to a run whose contexts did not fit the instructions. */
    private static final String CONTEXT_SEARCH = "context_search";
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");
    private static final Pattern TOOL_NAME = Pattern.compile("[a-z][a-z0-9_]{0,63}");

    /** Options of the scripted model: words per {@code message_delta} and a pause before each. */
    public record ScriptedOptions(int wordsPerDelta, long deltaDelayMs) {
        public static final ScriptedOptions DEFAULT = new ScriptedOptions(2, 0);

        public ScriptedOptions {
            if (wordsPerDelta <= 0) {
                wordsPerDelta = 2;
            }
            require(deltaDelayMs >= 0 && deltaDelayMs <= 60_000, "scripted.delta_delay_ms must be 0–60000");
        }
    }

    /** @throws IllegalArgumentException naming the first field that is wrong and why */
    public AgentDefinition {
        require(id != null && ID.matcher(id).matches(), "id must be 1–64 letters, digits, '_', '.' or '-' (got " + quoted(id) + ")");
        name = name == null || name.isBlank() ? id : name;
        // No default: an agent meant for a real model but saved without its provider must not quietly echo.
        require(provider != null && !provider.isBlank(), "provider is required: openai, anthropic, gemini, ollama or scripted");
        require(PROVIDERS.contains(provider), "provider must be one of openai, anthropic, gemini, ollama, scripted (got " + quoted(provider) + ")");
        model = model == null ? "" : model.strip();
        require(!model.isEmpty() || provider.equals("scripted"), "model is required for provider " + provider);
        baseUrl = baseUrl == null || baseUrl.isBlank() ? null : baseUrl.strip().replaceAll("/+$", "");
        require(baseUrl == null || isHttpUrl(baseUrl), "base_url must be an http(s) URL (got " + quoted(baseUrl) + ")");
        apiKeyEnv = apiKeyEnv == null || apiKeyEnv.isBlank() ? null : apiKeyEnv.strip();
        require(apiKeyEnv == null || ENV_NAME.matcher(apiKeyEnv).matches(),
                "api_key_env must name an environment variable (letters, digits, '_'), not hold a key");
        instructions = instructions == null ? "" : instructions;
        tools = tools == null ? List.of() : List.copyOf(tools);
        for (String tool : tools) {
            require(tool != null && TOOL_NAME.matcher(tool).matches(), "tools must be tool names like calculator (got " + quoted(tool) + ")");
        }
        require(temperature == null || (temperature >= 0 && temperature <= 2), "temperature must be 0–2");
        require(maxOutputTokens == null || (maxOutputTokens > 0 && maxOutputTokens <= 1_000_000), "max_output_tokens must be 1–1000000");
        if (maxToolCalls <= 0) {
            maxToolCalls = DEFAULT_MAX_TOOL_CALLS;
        }
        require(maxToolCalls <= 100, "max_tool_calls must be at most 100");
        require(runTimeout == null || (!runTimeout.isNegative() && !runTimeout.isZero() && runTimeout.compareTo(Duration.ofHours(6)) <= 0),
                "run_timeout must be positive and at most 6h");
        if (contextTokenBudget <= 0) {
            contextTokenBudget = DEFAULT_CONTEXT_TOKEN_BUDGET;
        }
        require(thinkingBudget == null || thinkingBudget >= 1024, "thinking_budget must be at least 1024 tokens");
        scripted = scripted == null ? ScriptedOptions.DEFAULT : scripted;
        mcpServers = mcpServers == null ? List.of() : List.copyOf(mcpServers);
        requireOneNamespace(tools, mcpServers);
        approvals = approvals == null ? Approvals.NONE : approvals;
        for (String tool : approvals.tools()) {
            require(tools.contains(tool) || mcpServers.stream().anyMatch(toolset -> toolset.tools().contains(tool)),
                    "approvals: '" + tool + "' is not one of the agent's tools");
        }
    }

    /** Every tool name the model may be offered, once: a call names the tool it means. */
    private static void requireOneNamespace(List<String> tools, List<McpToolset> mcpServers) {
        Set<String> names = new HashSet<>(tools);
        require(names.size() == tools.size(), "tools: a tool is listed twice");
        Set<String> servers = new HashSet<>();
        for (McpToolset toolset : mcpServers) {
            require(servers.add(toolset.server()), "mcp_servers: server '" + toolset.server() + "' is listed twice");
            for (String tool : toolset.tools()) {
                require(!tool.equals(CONTEXT_SEARCH), "mcp_servers: '" + CONTEXT_SEARCH + "' is the name of a built-in tool");
                require(names.add(tool), "mcp_servers: tool '" + tool + "' (of '" + toolset.server() + "') has the name of another tool of the agent");
            }
        }
    }

    /** Whether a run of this agent needs the project's MCP servers. */
    public boolean usesMcp() {
        return !mcpServers.isEmpty();
    }

    public static boolean isValidId(String candidate) {
        return ID.matcher(candidate).matches();
    }

    /** A scripted agent with every built-in tool. */
    public static AgentDefinition scripted(String id) {
        return scripted(id, ScriptedOptions.DEFAULT);
    }

    public static AgentDefinition scripted(String id, ScriptedOptions options) {
        return new AgentDefinition(id, id, "scripted", "", null, null, "", List.of("calculator", "current_time", "context_search"),
                null, null, DEFAULT_MAX_TOOL_CALLS, null, DEFAULT_CONTEXT_TOKEN_BUDGET, false, null, options, null, List.of(), Approvals.NONE);
    }

    /** A copy with other tools, for tests and tooling. */
    public AgentDefinition withTools(List<String> allowed) {
        return new AgentDefinition(id, name, provider, model, baseUrl, apiKeyEnv, instructions, new ArrayList<>(allowed),
                temperature, maxOutputTokens, maxToolCalls, runTimeout, contextTokenBudget, metadataToModel, thinkingBudget, scripted,
                responseFormat, mcpServers, approvals);
    }

    /** A copy that may call these MCP tools, for tests and tooling. */
    public AgentDefinition withMcpServers(List<McpToolset> toolsets) {
        return new AgentDefinition(id, name, provider, model, baseUrl, apiKeyEnv, instructions, tools, temperature, maxOutputTokens,
                maxToolCalls, runTimeout, contextTokenBudget, metadataToModel, thinkingBudget, scripted, responseFormat, toolsets, approvals);
    }

    /** A copy whose calls of these tools wait for a person, for tests and tooling. */
    public AgentDefinition withApprovals(Approvals required) {
        return new AgentDefinition(id, name, provider, model, baseUrl, apiKeyEnv, instructions, tools, temperature, maxOutputTokens,
                maxToolCalls, runTimeout, contextTokenBudget, metadataToModel, thinkingBudget, scripted, responseFormat, mcpServers, required);
    }

    private static boolean isHttpUrl(String value) {
        try {
            URI uri = URI.create(value);
            return ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }

    private static String quoted(@Nullable Object value) {
        return value == null ? "nothing" : "'" + value + "'";
    }
}
