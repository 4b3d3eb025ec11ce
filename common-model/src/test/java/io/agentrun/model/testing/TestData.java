package io.agentrun.model.testing;

import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.agent.Approvals;
import io.agentrun.model.mcp.McpToolset;
import io.agentrun.model.command.RunCommand;
import io.agentrun.model.command.ResponseFormat;
import io.agentrun.model.command.RunInput;
import io.agentrun.model.command.RunMode;
import io.agentrun.model.id.Ids;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Test data builders for the wire contracts: {@code aRunCommand()}, {@code anAgent()}. */
public final class TestData {

    private TestData() {
    }

    public static RunCommandBuilder aRunCommand() {
        return new RunCommandBuilder();
    }

    public static AgentBuilder anAgent() {
        return new AgentBuilder();
    }

    public static final class RunCommandBuilder {
        private String runId = Ids.newRunId();
        private String threadId = Ids.newThreadId();
        private String projectId = "project-" + Ids.newRunId().substring(4, 12);
        private String agentId = "assistant";
        private RunMode mode = RunMode.STREAM;
        private String query = "hello";
        private final List<String> images = new ArrayList<>();
        private final List<String> contexts = new ArrayList<>();
        private final Map<String, Object> metadata = new LinkedHashMap<>();
        private ResponseFormat responseFormat;

        public RunCommandBuilder project(String projectId) {
            this.projectId = projectId;
            return this;
        }

        public RunCommandBuilder agent(String agentId) {
            this.agentId = agentId;
            return this;
        }

        public RunCommandBuilder thread(String threadId) {
            this.threadId = threadId;
            this.mode = RunMode.STREAM;
            return this;
        }

        public RunCommandBuilder oneOff() {
            this.threadId = null;
            this.mode = RunMode.ONE_OFF;
            return this;
        }

        public RunCommandBuilder query(String query) {
            this.query = query;
            return this;
        }

        public RunCommandBuilder image(String url) {
            images.add(url);
            return this;
        }

        public RunCommandBuilder context(String contextId) {
            contexts.add(contextId);
            return this;
        }

        public RunCommandBuilder metadata(String key, Object value) {
            metadata.put(key, value);
            return this;
        }

        /** An answer in this JSON Schema ({@code response_format}). */
        public RunCommandBuilder responseFormat(ResponseFormat responseFormat) {
            this.responseFormat = responseFormat;
            return this;
        }

        public RunCommand build() {
            return new RunCommand(runId, threadId, projectId, agentId, mode,
                    new RunInput(query, images, List.of(), List.of(), contexts, responseFormat), metadata, Instant.now());
        }
    }

    public static final class AgentBuilder {
        private String id = "assistant";
        private String provider = "scripted";
        private String model = "";
        private String baseUrl;
        private String apiKeyEnv;
        private String instructions = "";
        private List<String> tools = List.of("calculator", "current_time", "context_search");
        private Double temperature;
        private Integer maxOutputTokens;
        private int maxToolCalls = AgentDefinition.DEFAULT_MAX_TOOL_CALLS;
        private Duration runTimeout;
        private int contextTokenBudget = AgentDefinition.DEFAULT_CONTEXT_TOKEN_BUDGET;
        private boolean metadataToModel;
        private Integer thinkingBudget;
        private AgentDefinition.ScriptedOptions scripted = AgentDefinition.ScriptedOptions.DEFAULT;
        private ResponseFormat responseFormat;
        private final List<McpToolset> mcpServers = new ArrayList<>();
        private Approvals approvals = Approvals.NONE;

        public AgentBuilder id(String id) {
            this.id = id;
            return this;
        }

        public AgentBuilder openai(String model, String baseUrl) {
            this.provider = "openai";
            this.model = model;
            this.baseUrl = baseUrl;
            return this;
        }

        /** An agent of {@code provider} (e.g. {@code gemini}, {@code ollama}) at {@code baseUrl}. */
        public AgentBuilder provider(String provider, String model, String baseUrl) {
            this.provider = provider;
            this.model = model;
            this.baseUrl = baseUrl;
            return this;
        }

        public AgentBuilder anthropic(String model, String baseUrl) {
            this.provider = "anthropic";
            this.model = model;
            this.baseUrl = baseUrl;
            return this;
        }

        public AgentBuilder apiKeyEnv(String name) {
            this.apiKeyEnv = name;
            return this;
        }

        public AgentBuilder instructions(String instructions) {
            this.instructions = instructions;
            return this;
        }

        public AgentBuilder tools(String... tools) {
            this.tools = List.of(tools);
            return this;
        }

        public AgentBuilder temperature(double temperature) {
            this.temperature = temperature;
            return this;
        }

        public AgentBuilder maxOutputTokens(int tokens) {
            this.maxOutputTokens = tokens;
            return this;
        }

        public AgentBuilder maxToolCalls(int calls) {
            this.maxToolCalls = calls;
            return this;
        }

        public AgentBuilder runTimeout(Duration timeout) {
            this.runTimeout = timeout;
            return this;
        }

        public AgentBuilder contextTokenBudget(int tokens) {
            this.contextTokenBudget = tokens;
            return this;
        }

        public AgentBuilder metadataToModel() {
            this.metadataToModel = true;
            return this;
        }

        public AgentBuilder thinkingBudget(int tokens) {
            this.thinkingBudget = tokens;
            return this;
        }

        /** Answers in this JSON Schema unless a run request gives one. */
        public AgentBuilder responseFormat(ResponseFormat responseFormat) {
            this.responseFormat = responseFormat;
            return this;
        }

        /** May call these tools of a registered MCP server. */
        public AgentBuilder mcpServer(String server, String... tools) {
            this.mcpServers.add(new McpToolset(server, List.of(tools)));
            return this;
        }

        /** Calls of these tools wait for a person's decision, at most {@code deadline}. */
        public AgentBuilder approvalRequired(Duration deadline, String... tools) {
            this.approvals = new Approvals(List.of(tools), deadline, false);
            return this;
        }

        public AgentBuilder scripted(int wordsPerDelta, long deltaDelayMs) {
            this.scripted = new AgentDefinition.ScriptedOptions(wordsPerDelta, deltaDelayMs);
            return this;
        }

        public AgentDefinition build() {
            return new AgentDefinition(id, id, provider, model, baseUrl, apiKeyEnv, instructions, tools, temperature,
                    maxOutputTokens, maxToolCalls, runTimeout, contextTokenBudget, metadataToModel, thinkingBudget, scripted,
                    responseFormat, mcpServers, approvals);
        }
    }
}
