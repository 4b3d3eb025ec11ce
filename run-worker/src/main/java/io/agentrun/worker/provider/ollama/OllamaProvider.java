package io.agentrun.worker.provider.ollama;

import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.worker.provider.Attachment;
import io.agentrun.worker.provider.Attachments;
import io.agentrun.worker.provider.ModelException;
import io.agentrun.worker.provider.ModelRequest;
import io.agentrun.worker.provider.ProviderFailures;
import io.agentrun.worker.provider.springai.SpringAiProvider;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.ollama.OllamaChatModel;
import org.springframework.ai.ollama.api.OllamaApi;
import org.springframework.ai.ollama.api.OllamaChatOptions;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.core.codec.CodecException;
import org.springframework.http.HttpHeaders;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientRequestException;
import org.springframework.web.reactive.function.client.WebClientResponseException;
import tools.jackson.databind.json.JsonMapper;

/**
 * Ollama's own API ({@code /api/chat}, newline-delimited JSON) through Spring AI's Ollama model: a local server by
 * default, or one behind a proxy that wants a bearer key. Reasoning ({@code thinking}) streams for thinking models when
 * the agent sets a thinking budget (Ollama takes no budget, only on or off); a run's JSON Schema goes as {@code format}.
 * Ollama has no way to forbid tool calls, so once the run's tool budget is spent the tools stay declared and the loop
 * takes a turn that still calls them as the answer, running none of its calls.
 */
public final class OllamaProvider implements SpringAiProvider {

    static final String DEFAULT_BASE_URL = "http://localhost:11434";
    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    @Override
    public String name() {
        return "ollama";
    }

    /** Streams go through WebClient, which Spring AI does not retry. */
    @Override
    public OllamaChatModel client(AgentDefinition agent, @Nullable String key) {
        WebClient.Builder web = WebClient.builder();
        if (key != null) {
            web.defaultHeader(HttpHeaders.AUTHORIZATION, "Bearer " + key);
        }
        OllamaApi api = OllamaApi.builder().baseUrl(agent.baseUrl() != null ? agent.baseUrl() : DEFAULT_BASE_URL)
                .webClientBuilder(web).build();
        return OllamaChatModel.builder().ollamaApi(api).options(OllamaChatOptions.builder().model(agent.model()).build()).build();
    }

    @Override
    public ChatOptions options(ModelRequest request, List<ToolCallback> tools) {
        AgentDefinition agent = request.agent();
        var options = OllamaChatOptions.builder().model(agent.model()).temperature(agent.temperature())
                .numPredict(agent.maxOutputTokens()).toolCallbacks(tools);
        if (agent.thinkingBudget() != null) {
            options.enableThinking();
        }
        if (request.responseFormat() != null) {
            options.format(MAPPER.convertValue(request.responseFormat().schema(), Map.class));
        }
        return options.build();
    }

    @Override
    public String thinking(AssistantMessage chunk, String soFar) {
        return chunk.getMetadata().get("thinking") instanceof String thought ? thought : "";
    }

    @Override
    public ModelException failure(RuntimeException error, @Nullable String key) {
        return switch (error) {
            case WebClientResponseException status -> ProviderFailures.status(name(), status.getStatusCode().value(),
                    ProviderFailures.sdkDetail(status.getResponseBodyAsString()), status.getHeaders().getFirst(HttpHeaders.RETRY_AFTER), key);
            case WebClientRequestException connection -> ProviderFailures.connection(name(), connection);
            case CodecException malformed -> ProviderFailures.malformed(name(), String.valueOf(malformed.getMostSpecificCause().getMessage()));
            default -> ProviderFailures.connection(name(), error);
        };
    }

    /** Ollama's chat takes images only. */
    @Override
    public void check(ModelRequest request) {
        Attachments.refuse(request, name(), file -> file.kind() == Attachment.Kind.AUDIO, "Ollama's chat does not accept audio");
    }
}
