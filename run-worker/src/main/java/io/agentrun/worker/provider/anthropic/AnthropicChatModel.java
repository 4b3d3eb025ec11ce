package io.agentrun.worker.provider.anthropic;

import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.event.Usage;
import io.agentrun.worker.provider.ChatModel;
import io.agentrun.worker.provider.ModelException;
import io.agentrun.worker.provider.ModelListener;
import io.agentrun.worker.provider.ModelMessage;
import io.agentrun.worker.provider.ModelRequest;
import io.agentrun.worker.provider.ModelTurn;
import io.agentrun.worker.provider.Attachment;
import io.agentrun.worker.provider.ThinkingBlock;
import io.agentrun.worker.provider.ToolCall;
import io.agentrun.worker.provider.ToolSpec;
import io.agentrun.worker.provider.http.Attachments;
import io.agentrun.worker.provider.http.ProviderHttp;
import io.agentrun.worker.provider.http.ProviderKeys;
import io.agentrun.worker.provider.http.SseReader;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Anthropic Messages API, streamed: {@code content_block_delta} events carry text, thinking (and its
 * signature) and {@code input_json} fragments of {@code tool_use} blocks; {@code message_start} and
 * {@code message_delta} carry usage. Thinking blocks are handed back unchanged in the next step of a tool
 * loop, as the API requires. A run that wants its answer in a JSON Schema gets Anthropic's native mode for it: the
 * schema is offered as a tool the model is made to call ({@link AnswerTool}), and that call's input is the answer.
 */
public final class AnthropicChatModel implements ChatModel {

    public static final String DEFAULT_BASE_URL = "https://api.anthropic.com";
    static final String API_VERSION = "2023-06-01";
    private static final String PROVIDER = "anthropic";
    private static final int DEFAULT_MAX_TOKENS = 1024;

    private final ProviderHttp http;
    private final ProviderKeys keys;
    private final JsonMapper mapper = JsonMapper.builder().build();

    public AnthropicChatModel(ProviderHttp http, ProviderKeys keys) {
        this.http = http;
        this.keys = keys;
    }

    @Override
    public String provider() {
        return PROVIDER;
    }

    @Override
    public ModelTurn stream(ModelRequest request, ModelListener listener) throws InterruptedException {
        AgentDefinition agent = request.agent();
        String key = keys.keyOf(agent).orElse(null);
        String base = agent.baseUrl() != null ? agent.baseUrl() : DEFAULT_BASE_URL;
        String answerTool = AnswerTool.nameFor(request);
        HttpRequest.Builder post = ProviderHttp.streamingPost(base + "/v1/messages", mapper.writeValueAsString(body(request, answerTool)))
                .header("anthropic-version", API_VERSION);
        if (key != null) {
            post.header("x-api-key", key);
        }
        return http.stream(post, PROVIDER, key, request.cancel(), events -> read(events, listener, request, answerTool));
    }

    /** @param answerTool the name of the tool whose input is the answer ({@link AnswerTool}), or null */
    private ModelTurn read(SseReader events, ModelListener listener, ModelRequest request, @Nullable String answerTool)
            throws IOException {
        Map<Integer, Block> blocks = new TreeMap<>();
        long inputTokens = 0;
        long outputTokens = 0;
        String stop = null;
        boolean stopped = false;
        SseReader.Event event;
        while ((event = events.next()) != null) {
            request.cancel().throwIfCancelled();
            JsonNode data = http.chunk(PROVIDER, event.data());
            String type = data.path("type").asString(event.name() == null ? "" : event.name());
            switch (type) {
                case "message_start" -> {
                    JsonNode usage = data.path("message").path("usage");
                    inputTokens = usage.path("input_tokens").asLong(0) + usage.path("cache_read_input_tokens").asLong(0)
                            + usage.path("cache_creation_input_tokens").asLong(0);
                    outputTokens = usage.path("output_tokens").asLong(0);
                }
                case "content_block_start" -> blocks.put(data.path("index").asInt(), Block.of(data.path("content_block"), answerTool));
                case "content_block_delta" -> {
                    Block block = blocks.get(data.path("index").asInt());
                    if (block == null) {
                        throw ProviderHttp.malformed(PROVIDER, "a delta for content block " + data.path("index").asInt() + " that never started");
                    }
                    block.add(data.path("delta"), listener);
                }
                case "message_delta" -> {
                    if (data.path("delta").path("stop_reason").isString()) {
                        stop = data.path("delta").path("stop_reason").asString();
                    }
                    outputTokens = data.path("usage").path("output_tokens").asLong(outputTokens);
                }
                case "message_stop" -> stopped = true;
                case "error" -> throw streamError(data.path("error"));
                default -> {
                    // ping, content_block_stop and events added later carry nothing we need
                }
            }
            if (stopped) {
                break;
            }
        }
        if (!stopped) {
            throw new ModelException("connection_error", PROVIDER + " stream ended before message_stop", true);
        }
        return turn(blocks, new Usage(inputTokens, outputTokens), stop);
    }

    private static ModelTurn turn(Map<Integer, Block> blocks, Usage usage, String stop) {
        StringBuilder text = new StringBuilder();
        List<ToolCall> calls = new ArrayList<>();
        List<ThinkingBlock> thinking = new ArrayList<>();
        for (Block block : blocks.values()) {
            switch (block.type) {
                case "text" -> text.append(block.content);
                case Block.ANSWER -> text.append(block.content.isEmpty() ? "{}" : block.content);
                case "thinking" -> thinking.add(new ThinkingBlock(block.content.toString(), block.signature));
                case "redacted_thinking" -> thinking.add(ThinkingBlock.redacted(block.redactedData));
                case "tool_use" -> calls.add(new ToolCall(block.id, block.name, block.content.isEmpty() ? "{}" : block.content.toString()));
                default -> {
                    // other block types are not replayed
                }
            }
        }
        return new ModelTurn(text.toString(), calls, thinking, usage, stop == null ? "end_turn" : stop);
    }

    private static ModelException streamError(JsonNode error) {
        String type = error.path("type").asString("error");
        boolean retryable = type.equals("overloaded_error") || type.equals("api_error") || type.equals("rate_limit_error");
        return new ModelException(retryable ? "provider_unavailable" : "provider_error",
                PROVIDER + " reported " + type + ": " + ProviderHttp.redact(error.path("message").asString(""), null), retryable);
    }

    private ObjectNode body(ModelRequest request, @Nullable String answerTool) {
        AgentDefinition agent = request.agent();
        ObjectNode body = mapper.createObjectNode();
        body.put("model", agent.model());
        int maxTokens = agent.maxOutputTokens() != null ? agent.maxOutputTokens() : DEFAULT_MAX_TOKENS;
        if (agent.thinkingBudget() != null) {
            maxTokens = Math.max(maxTokens, agent.thinkingBudget() + DEFAULT_MAX_TOKENS);
            body.putObject("thinking").put("type", "enabled").put("budget_tokens", agent.thinkingBudget());
        } else if (agent.temperature() != null) {
            body.put("temperature", Math.min(agent.temperature(), 1.0)); // Anthropic's range is 0–1
        }
        body.put("max_tokens", maxTokens);
        body.put("stream", true);
        if (!request.system().isEmpty()) {
            body.put("system", request.system());
        }
        body.set("messages", messages(request.messages()));
        if (!request.tools().isEmpty()) {
            ArrayNode tools = body.putArray("tools");
            for (ToolSpec tool : request.tools()) {
                tools.addObject().put("name", tool.name()).put("description", tool.description()).set("input_schema", tool.parameters());
            }
            if (!request.mayCallTools()) {
                body.putObject("tool_choice").put("type", "none");
            }
        }
        AnswerTool.offer(request, answerTool, body);
        return body;
    }

    /** Anthropic wants strictly alternating roles: consecutive messages of one role become one message. */
    private ArrayNode messages(List<ModelMessage> messages) {
        ArrayNode wire = mapper.createArrayNode();
        String lastRole = null;
        ArrayNode content = null;
        for (ModelMessage message : messages) {
            String role = message instanceof ModelMessage.Assistant ? "assistant" : "user";
            if (!role.equals(lastRole)) {
                ObjectNode next = wire.addObject().put("role", role);
                content = next.putArray("content");
                lastRole = role;
            }
            appendContent(content, message);
        }
        return wire;
    }

    private void appendContent(ArrayNode content, ModelMessage message) {
        switch (message) {
            case ModelMessage.User user -> {
                Attachments.of(user, Attachment.Kind.AUDIO).stream().findFirst().ifPresent(audio -> {
                    throw Attachments.unsupported(PROVIDER, audio, "the Messages API does not accept audio");
                });
                content.addObject().put("type", "text").put("text", user.text() + Attachments.note(user));
                Attachments.of(user, Attachment.Kind.IMAGE).forEach(image -> content.addObject().put("type", "image")
                        .putObject("source").put("type", "base64").put("media_type", image.contentType()).put("data", image.base64()));
            }
            case ModelMessage.Assistant assistant -> {
                for (ThinkingBlock block : assistant.thinking()) {
                    if (block.redactedData() != null) {
                        content.addObject().put("type", "redacted_thinking").put("data", block.redactedData());
                        continue;
                    }
                    ObjectNode thinking = content.addObject().put("type", "thinking").put("thinking", block.text());
                    if (block.signature() != null) {
                        thinking.put("signature", block.signature());
                    }
                }
                if (!assistant.text().isEmpty()) {
                    content.addObject().put("type", "text").put("text", assistant.text());
                }
                for (ToolCall call : assistant.toolCalls()) {
                    content.addObject().put("type", "tool_use").put("id", call.id()).put("name", call.name())
                            .set("input", inputOf(call));
                }
            }
            case ModelMessage.ToolResult result -> content.addObject().put("type", "tool_result")
                    .put("tool_use_id", result.toolCallId()).put("content", result.output()).put("is_error", result.isError());
        }
    }

    private JsonNode inputOf(ToolCall call) {
        try {
            JsonNode input = mapper.readTree(call.arguments().isBlank() ? "{}" : call.arguments());
            return input.isObject() ? input : mapper.createObjectNode();
        } catch (JacksonException e) {
            return mapper.createObjectNode(); // the tool result already told the model its arguments were invalid
        }
    }

    /** One content block being streamed. */
    private static final class Block {
        /** The type given to the {@code tool_use} block of the answer tool: its input is the answer, streamed as text. */
        static final String ANSWER = "answer";
        final String type;
        final String id;
        final String name;
        final StringBuilder content = new StringBuilder();
        String signature;
        String redactedData = "";

        private Block(String type, String id, String name) {
            this.type = type;
            this.id = id;
            this.name = name;
        }

        static Block of(JsonNode start, @Nullable String answerTool) {
            String type = start.path("type").asString("");
            String name = start.path("name").asString("");
            boolean answer = type.equals("tool_use") && name.equals(answerTool);
            Block block = new Block(answer ? ANSWER : type, start.path("id").asString(""), name);
            if (block.type.equals("text") && start.path("text").isString()) {
                block.content.append(start.path("text").asString());
            }
            if (block.type.equals("redacted_thinking")) {
                block.redactedData = start.path("data").asString("");
            }
            return block;
        }

        void add(JsonNode delta, ModelListener listener) {
            switch (delta.path("type").asString("")) {
                case "text_delta" -> {
                    String text = delta.path("text").asString("");
                    content.append(text);
                    listener.onTextDelta(text);
                }
                case "thinking_delta" -> {
                    String thinking = delta.path("thinking").asString("");
                    content.append(thinking);
                    listener.onThinking(thinking);
                }
                case "signature_delta" -> signature = (signature == null ? "" : signature) + delta.path("signature").asString("");
                case "input_json_delta" -> {
                    String json = delta.path("partial_json").asString("");
                    content.append(json);
                    if (type.equals(ANSWER)) {
                        listener.onTextDelta(json);
                    }
                }
                default -> {
                    // unknown delta types are skipped
                }
            }
        }
    }
}
