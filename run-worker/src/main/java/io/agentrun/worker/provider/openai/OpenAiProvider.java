package io.agentrun.worker.provider.openai;

import com.openai.errors.OpenAIInvalidDataException;
import com.openai.errors.OpenAIIoException;
import com.openai.errors.OpenAIServiceException;
import com.openai.errors.SseException;
import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.model.command.ResponseFormat;
import io.agentrun.worker.provider.Attachment;
import io.agentrun.worker.provider.Attachments;
import io.agentrun.worker.provider.ModelException;
import io.agentrun.worker.provider.ModelRequest;
import io.agentrun.worker.provider.ProviderFailures;
import io.agentrun.worker.provider.springai.SpringAiProvider;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.openai.OpenAiChatModel;
import org.springframework.ai.openai.OpenAiChatOptions;
import org.springframework.ai.tool.ToolCallback;
import tools.jackson.databind.json.JsonMapper;

/**
 * OpenAI Chat Completions through Spring AI's OpenAI model (on OpenAI's Java SDK) — and so every server that speaks it
 * (vLLM, llama.cpp server, LM Studio, Groq, Together…): {@code base_url} points at it. Reasoning
 * ({@code reasoning_content} or {@code reasoning}) streams as Spring AI accumulates it.
 */
public final class OpenAiProvider implements SpringAiProvider {

    static final String DEFAULT_BASE_URL = "https://api.openai.com/v1";
    private static final Set<String> AUDIO = Set.of("audio/wav", "audio/x-wav", "audio/mpeg", "audio/mp3");
    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    /** The client's bound on a whole call: the run's own timeout is what ends a stream, so this is only a backstop. */
    private final Duration callTimeout;

    public OpenAiProvider(Duration callTimeout) {
        this.callTimeout = callTimeout;
    }

    @Override
    public String name() {
        return "openai";
    }

    @Override
    public OpenAiChatModel client(AgentDefinition agent, @Nullable String key) {
        // An empty key is Spring AI's no-auth mode (a local server); null would make it read OPENAI_API_KEY instead.
        return OpenAiChatModel.builder().options(OpenAiChatOptions.builder().baseUrl(baseUrl(agent))
                .apiKey(key == null ? "" : key).maxRetries(0).timeout(callTimeout).model(agent.model()).build()).build();
    }

    @Override
    public ChatOptions options(ModelRequest request, List<ToolCallback> tools) {
        AgentDefinition agent = request.agent();
        // The step's options replace the client's, timeout included (Spring AI's default, 60 s, would cut longer streams).
        var options = OpenAiChatOptions.builder().model(agent.model()).temperature(agent.temperature()).toolCallbacks(tools)
                .timeout(callTimeout).maxRetries(0);
        if (!tools.isEmpty() && !request.mayCallTools()) {
            options.toolChoice("none");
        }
        if (agent.maxOutputTokens() != null && baseUrl(agent).contains("api.openai.com")) {
            options.maxCompletionTokens(agent.maxOutputTokens()); // OpenAI's reasoning models refuse max_tokens
        } else if (agent.maxOutputTokens() != null) {
            options.maxTokens(agent.maxOutputTokens());
        }
        if (request.responseFormat() != null) {
            options.extraBody(Map.of("response_format", responseFormat(request.responseFormat())));
        }
        return options.build();
    }

    /**
     * Set as it is on the wire: Spring AI names every schema {@code json_schema} and makes it strict, and OpenAI's strict
     * mode takes a subset of JSON Schema; the run validates the answer itself.
     */
    private static Map<String, Object> responseFormat(ResponseFormat format) {
        return Map.of("type", "json_schema", "json_schema",
                Map.of("name", format.name(), "strict", false, "schema", MAPPER.convertValue(format.schema(), Map.class)));
    }

    @Override
    public String thinking(AssistantMessage chunk, String soFar) {
        return chunk.getMetadata().get("reasoningContent") instanceof String all && all.startsWith(soFar)
                ? all.substring(soFar.length()) : "";
    }

    @Override
    public ModelException failure(RuntimeException error, @Nullable String key) {
        return switch (error) {
            case SseException midStream -> new ModelException("provider_error", name() + " reported an error mid-stream: "
                    + ProviderFailures.redact(String.valueOf(midStream.getMessage()), key), false);
            case OpenAIServiceException status -> ProviderFailures.status(name(), status.statusCode(), ProviderFailures.sdkDetail(status.getMessage()),
                    status.headers().values("retry-after").stream().findFirst().orElse(null), key);
            case OpenAIIoException io -> ProviderFailures.connection(name(), io);
            case OpenAIInvalidDataException malformed -> ProviderFailures.malformed(name(), String.valueOf(malformed.getMessage()));
            default -> ProviderFailures.connection(name(), error);
        };
    }

    /** Chat Completions takes audio as wav or mp3 only. */
    @Override
    public void check(ModelRequest request) {
        Attachments.refuse(request, name(), file -> file.kind() == Attachment.Kind.AUDIO && !AUDIO.contains(file.contentType()),
                "Chat Completions accepts audio as wav or mp3 only");
    }

    private static String baseUrl(AgentDefinition agent) {
        return agent.baseUrl() != null ? agent.baseUrl() : DEFAULT_BASE_URL;
    }
}
