package io.agentrun.worker.provider.anthropic;

import com.anthropic.client.AnthropicClientAsync;
import com.anthropic.client.okhttp.AnthropicOkHttpClientAsync;
import com.anthropic.core.JsonField;
import com.anthropic.core.JsonValue;
import com.anthropic.core.RequestOptions;
import com.anthropic.core.Timeout;
import com.anthropic.core.http.AsyncStreamResponse;
import com.anthropic.errors.AnthropicInvalidDataException;
import com.anthropic.errors.AnthropicServiceException;
import com.anthropic.errors.SseException;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.RawMessageStreamEvent;
import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.worker.provider.Attachment;
import io.agentrun.worker.provider.Attachments;
import io.agentrun.worker.provider.ChatModel;
import io.agentrun.worker.provider.ModelException;
import io.agentrun.worker.provider.ModelListener;
import io.agentrun.worker.provider.ModelMessage;
import io.agentrun.worker.provider.ModelRequest;
import io.agentrun.worker.provider.ModelTurn;
import io.agentrun.worker.provider.ProviderClients;
import io.agentrun.worker.provider.ProviderFailures;
import io.agentrun.worker.provider.ProviderKeys;
import io.agentrun.worker.provider.ProviderStream;
import io.agentrun.worker.provider.ThinkingBlock;
import io.agentrun.worker.provider.ToolCall;
import io.agentrun.worker.provider.ToolSpec;
import java.util.List;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Anthropic Messages API, streamed through Anthropic's Java SDK (not Spring AI's Anthropic model: in 2.0.1 it streams a
 * thinking delta as an empty message, and holds a tool call's input until the block ends, so neither reasoning nor an
 * answer through {@link AnswerTool} would stream). {@code content_block_delta} events carry text, thinking (and its
 * signature) and {@code input_json} fragments of {@code tool_use} blocks; {@code message_start} and
 * {@code message_delta} carry usage. Thinking blocks are handed back unchanged in the next step of a tool loop, as the
 * API requires. A run that wants its answer in a JSON Schema gets Anthropic's native mode for it: the schema is offered
 * as a tool the model is made to call ({@link AnswerTool}), and that call's input is the answer. The request body is
 * shaped here and handed to the SDK as JSON; the SDK owns the connection, the stream's parsing and the errors.
 */
public final class AnthropicChatModel implements ChatModel {

    public static final String DEFAULT_BASE_URL = "https://api.anthropic.com";
    static final String API_VERSION = "2023-06-01";
    private static final String PROVIDER = "anthropic";
    private static final int DEFAULT_MAX_TOKENS = 1024;
    /** A redirect must not carry the {@code x-api-key} header elsewhere (OkHttp keeps it across hosts). */
    private static final RequestOptions NO_REDIRECTS = RequestOptions.builder().followRedirects(false).build();

    private final ProviderKeys keys;
    private final ProviderClients<AnthropicClientAsync> clients;
    /** The SDK's read timeout, also the bound of a stream's silence as this model reads it ({@link ProviderStream}). */
    private final java.time.Duration silence;
    private final JsonMapper mapper = JsonMapper.builder().build();

    /** @param timeout the SDK's: connect, read (the longest silence of a stream) and a backstop for a whole call */
    public AnthropicChatModel(ProviderKeys keys, Timeout timeout) {
        this.keys = keys;
        this.silence = timeout.read();
        this.clients = new ProviderClients<>((agent, key) -> client(agent, key, timeout));
    }

    /**
     * The key goes in {@code x-api-key}, the Messages API's header (the SDK would send it as a bearer token); with no key,
     * an empty one keeps the SDK from taking {@code ANTHROPIC_API_KEY} from the worker's environment. The API version is
     * the one the request body here is shaped for, not the SDK's newer default.
     */
    private static AnthropicClientAsync client(AgentDefinition agent, @Nullable String key, Timeout timeout) {
        var client = AnthropicOkHttpClientAsync.builder().baseUrl(agent.baseUrl() != null ? agent.baseUrl() : DEFAULT_BASE_URL)
                .apiKey(key == null ? "" : key).maxRetries(0).timeout(timeout).putHeader("anthropic-version", API_VERSION);
        return (key == null ? client : client.putHeader("x-api-key", key)).build();
    }

    @Override
    public String provider() {
        return PROVIDER;
    }

    @Override
    public ModelTurn stream(ModelRequest request, ModelListener listener) throws InterruptedException {
        String key = keys.keyOf(request.agent()).orElse(null);
        String answerTool = AnswerTool.nameFor(request);
        MessageCreateParams params = params(request, body(request, answerTool));
        StreamedMessage message = new StreamedMessage(listener, answerTool);
        try {
            ProviderStream.read(events(clients.of(request.agent(), key), params), request.cancel(), silence, message::add);
            return message.complete();
        } catch (RuntimeException e) {
            request.cancel().throwIfCancelled();
            throw e instanceof ModelException known ? known : failure(e, key);
        }
    }

    private static Flux<RawMessageStreamEvent> events(AnthropicClientAsync client, MessageCreateParams params) {
        return Flux.create(sink -> {
            AsyncStreamResponse<RawMessageStreamEvent> response = client.messages().createStreaming(params, NO_REDIRECTS);
            sink.onDispose(response::close);
            response.subscribe(sink::next).onCompleteFuture().whenComplete((done, error) -> {
                if (error != null) {
                    sink.error(error);
                } else {
                    sink.complete();
                }
            });
        });
    }

    private static ModelException failure(RuntimeException error, @Nullable String key) {
        return switch (error) {
            case SseException midStream -> streamError(ProviderFailures.sdkDetail(midStream.getMessage()), midStream.getMessage(), key);
            case AnthropicServiceException status -> ProviderFailures.status(PROVIDER, status.statusCode(),
                    ProviderFailures.sdkDetail(status.getMessage()), status.headers().values("retry-after").stream().findFirst().orElse(null), key);
            case AnthropicInvalidDataException malformed -> ProviderFailures.malformed(PROVIDER, String.valueOf(malformed.getMessage()));
            default -> ProviderFailures.connection(PROVIDER, error);
        };
    }

    /** An {@code error} event mid-stream: overloaded, an API error or a rate limit may pass on another try. */
    private static ModelException streamError(String detail, @Nullable String raw, @Nullable String key) {
        String said = raw == null ? "" : raw;
        boolean retryable = said.contains("overloaded_error") || said.contains("api_error") || said.contains("rate_limit_error");
        return new ModelException(retryable ? "provider_unavailable" : "provider_error",
                PROVIDER + " reported an error mid-stream: " + ProviderFailures.redact(detail, key), retryable);
    }

    /** The SDK's params: what it must know typed, the rest as the JSON shaped by {@link #body}. */
    private MessageCreateParams params(ModelRequest request, ObjectNode body) {
        AgentDefinition agent = request.agent();
        var params = MessageCreateParams.builder().model(agent.model()).maxTokens(body.remove("max_tokens").asLong())
                .messages(asField(plain(body.remove("messages"))));
        body.properties().forEach(field -> params.putAdditionalBodyProperty(field.getKey(), plain(field.getValue())));
        return params.build();
    }

    /** Our JSON as the SDK's (its own Jackson 2 tree): through plain maps, lists and values. */
    private JsonValue plain(JsonNode node) {
        return JsonValue.from(mapper.convertValue(node, Object.class));
    }

    @SuppressWarnings("unchecked") // the SDK's JsonValue reaches Java as a raw JsonField
    private static <T> JsonField<T> asField(JsonValue value) {
        return (JsonField<T>) (JsonField<?>) value;
    }

    private ObjectNode body(ModelRequest request, @Nullable String answerTool) {
        AgentDefinition agent = request.agent();
        ObjectNode body = mapper.createObjectNode();
        int maxTokens = agent.maxOutputTokens() != null ? agent.maxOutputTokens() : DEFAULT_MAX_TOKENS;
        if (agent.thinkingBudget() != null) {
            maxTokens = Math.max(maxTokens, agent.thinkingBudget() + DEFAULT_MAX_TOKENS);
            body.putObject("thinking").put("type", "enabled").put("budget_tokens", agent.thinkingBudget());
        } else if (agent.temperature() != null) {
            body.put("temperature", Math.min(agent.temperature(), 1.0)); // Anthropic's range is 0–1
        }
        body.put("max_tokens", maxTokens);
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
}
