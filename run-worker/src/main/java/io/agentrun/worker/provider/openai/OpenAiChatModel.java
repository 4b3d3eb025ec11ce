package io.agentrun.worker.provider.openai;

import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.event.Usage;
import io.agentrun.worker.provider.ChatModel;
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
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * OpenAI Chat Completions, streamed — and so every server that speaks it (vLLM, Ollama, llama.cpp
 * server, LM Studio, Groq, Together…): {@code base_url} points at it. Text deltas and reasoning
 * ({@code reasoning_content} or {@code reasoning}) stream out as they arrive; tool-call fragments are
 * put together by index; usage comes from the final chunk ({@code stream_options.include_usage}).
 */
public final class OpenAiChatModel implements ChatModel {

    public static final String DEFAULT_BASE_URL = "https://api.openai.com/v1";
    private static final String PROVIDER = "openai";

    private final ProviderHttp http;
    private final ProviderKeys keys;
    private final JsonMapper mapper = JsonMapper.builder().build();

    public OpenAiChatModel(ProviderHttp http, ProviderKeys keys) {
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
        HttpRequest.Builder post = ProviderHttp.streamingPost(base + "/chat/completions", mapper.writeValueAsString(body(request, base)));
        if (key != null) {
            post.header("authorization", "Bearer " + key);
        }
        return http.stream(post, PROVIDER, key, request.cancel(), events -> read(events, listener, request));
    }

    private ModelTurn read(SseReader events, ModelListener listener, ModelRequest request) throws IOException {
        StringBuilder text = new StringBuilder();
        StringBuilder reasoning = new StringBuilder();
        Map<Integer, PartialCall> calls = new TreeMap<>();
        Usage usage = Usage.NONE;
        String finish = null;
        boolean done = false;
        SseReader.Event event;
        while ((event = events.next()) != null) {
            request.cancel().throwIfCancelled();
            if (event.data().strip().equals("[DONE]")) {
                done = true;
                break;
            }
            JsonNode chunk = http.chunk(PROVIDER, event.data());
            if (chunk.has("error")) {
                throw new io.agentrun.worker.provider.ModelException("provider_error",
                        PROVIDER + " reported an error mid-stream: " + ProviderHttp.redact(chunk.path("error").path("message").asString(""), null), false);
            }
            JsonNode choice = chunk.path("choices").path(0);
            JsonNode delta = choice.path("delta");
            String thought = firstString(delta, "reasoning_content", "reasoning");
            if (thought != null && !thought.isEmpty()) {
                reasoning.append(thought);
                listener.onThinking(thought);
            }
            JsonNode content = delta.path("content");
            if (content.isString() && !content.asString().isEmpty()) {
                text.append(content.asString());
                listener.onTextDelta(content.asString());
            }
            for (JsonNode fragment : delta.path("tool_calls")) {
                calls.computeIfAbsent(fragment.path("index").asInt(calls.size()), i -> new PartialCall()).add(fragment);
            }
            if (choice.path("finish_reason").isString()) {
                finish = choice.path("finish_reason").asString();
            }
            if (chunk.path("usage").isObject()) {
                usage = new Usage(chunk.path("usage").path("prompt_tokens").asLong(0), chunk.path("usage").path("completion_tokens").asLong(0));
            }
        }
        if (!done && finish == null) {
            throw new io.agentrun.worker.provider.ModelException("connection_error", PROVIDER + " stream ended before it was complete", true);
        }
        List<ToolCall> toolCalls = new ArrayList<>();
        calls.forEach((index, call) -> toolCalls.add(call.complete(index)));
        List<ThinkingBlock> thinking = reasoning.isEmpty() ? List.of() : List.of(new ThinkingBlock(reasoning.toString(), null));
        return new ModelTurn(text.toString(), toolCalls, thinking, usage, finish == null ? "stop" : finish);
    }

    private ObjectNode body(ModelRequest request, String base) {
        AgentDefinition agent = request.agent();
        ObjectNode body = mapper.createObjectNode();
        body.put("model", agent.model());
        body.put("stream", true);
        body.putObject("stream_options").put("include_usage", true);
        ArrayNode messages = body.putArray("messages");
        if (!request.system().isEmpty()) {
            messages.addObject().put("role", "system").put("content", request.system());
        }
        request.messages().forEach(message -> messages.add(toWire(message)));
        if (!request.tools().isEmpty()) {
            ArrayNode tools = body.putArray("tools");
            for (ToolSpec tool : request.tools()) {
                ObjectNode function = tools.addObject().put("type", "function").putObject("function");
                function.put("name", tool.name()).put("description", tool.description()).set("parameters", tool.parameters());
            }
            if (!request.mayCallTools()) {
                body.put("tool_choice", "none");
            }
        }
        if (request.responseFormat() != null) {
            // Not strict: OpenAI's strict mode takes a subset of JSON Schema; the run validates the answer itself.
            body.putObject("response_format").put("type", "json_schema").putObject("json_schema")
                    .put("name", request.responseFormat().name()).put("strict", false).set("schema", request.responseFormat().schema());
        }
        if (agent.temperature() != null) {
            body.put("temperature", agent.temperature());
        }
        if (agent.maxOutputTokens() != null) {
            // OpenAI's own API wants max_completion_tokens (reasoning models refuse max_tokens); compatible servers know max_tokens.
            body.put(base.contains("api.openai.com") ? "max_completion_tokens" : "max_tokens", agent.maxOutputTokens());
        }
        return body;
    }

    private ObjectNode toWire(ModelMessage message) {
        ObjectNode wire = mapper.createObjectNode();
        switch (message) {
            case ModelMessage.User user -> {
                wire.put("role", "user");
                String text = user.text() + Attachments.note(user);
                List<Attachment> images = Attachments.of(user, Attachment.Kind.IMAGE);
                List<Attachment> audios = Attachments.of(user, Attachment.Kind.AUDIO);
                if (images.isEmpty() && audios.isEmpty()) {
                    wire.put("content", text);
                } else {
                    ArrayNode parts = wire.putArray("content");
                    parts.addObject().put("type", "text").put("text", text);
                    images.forEach(image -> parts.addObject().put("type", "image_url").putObject("image_url")
                            .put("url", "data:" + image.contentType() + ";base64," + image.base64()));
                    audios.forEach(audio -> parts.addObject().put("type", "input_audio").putObject("input_audio")
                            .put("data", audio.base64()).put("format", audioFormat(audio)));
                }
            }
            case ModelMessage.Assistant assistant -> {
                wire.put("role", "assistant");
                if (assistant.text().isEmpty()) {
                    wire.putNull("content");
                } else {
                    wire.put("content", assistant.text());
                }
                if (!assistant.toolCalls().isEmpty()) {
                    ArrayNode calls = wire.putArray("tool_calls");
                    for (ToolCall call : assistant.toolCalls()) {
                        calls.addObject().put("id", call.id()).put("type", "function")
                                .putObject("function").put("name", call.name()).put("arguments", call.arguments());
                    }
                }
            }
            case ModelMessage.ToolResult result -> wire.put("role", "tool").put("tool_call_id", result.toolCallId())
                    .put("content", result.isError() ? "Error: " + result.output() : result.output());
        }
        return wire;
    }

    /** Chat Completions takes audio as wav or mp3 only. */
    private static String audioFormat(Attachment audio) {
        return switch (audio.contentType()) {
            case "audio/wav", "audio/x-wav" -> "wav";
            case "audio/mpeg", "audio/mp3" -> "mp3";
            default -> throw Attachments.unsupported(PROVIDER, audio, "Chat Completions accepts audio as wav or mp3 only");
        };
    }

    private static @Nullable String firstString(JsonNode node, String... names) {
        for (String name : names) {
            if (node.path(name).isString()) {
                return node.path(name).asString();
            }
        }
        return null;
    }

    /** A tool call assembled from its streamed fragments: id and name once, arguments in pieces. */
    private static final class PartialCall {
        private String id = "";
        private final StringBuilder name = new StringBuilder();
        private final StringBuilder arguments = new StringBuilder();

        void add(JsonNode fragment) {
            if (fragment.path("id").isString() && !fragment.path("id").asString().isEmpty()) {
                id = fragment.path("id").asString();
            }
            JsonNode function = fragment.path("function");
            if (function.path("name").isString()) {
                name.append(function.path("name").asString());
            }
            if (function.path("arguments").isString()) {
                arguments.append(function.path("arguments").asString());
            }
        }

        ToolCall complete(int index) {
            return new ToolCall(id.isEmpty() ? "call_" + index : id, name.toString(), arguments.toString());
        }
    }
}
