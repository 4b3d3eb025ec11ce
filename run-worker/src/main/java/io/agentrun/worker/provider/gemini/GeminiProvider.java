package io.agentrun.worker.provider.gemini;

import com.google.genai.Client;
import com.google.genai.errors.ApiException;
import com.google.genai.types.ClientOptions;
import com.google.genai.types.HttpOptions;
import com.google.genai.types.HttpRetryOptions;
import io.agentrun.model.agent.AgentDefinition;
import io.agentrun.worker.provider.ModelException;
import io.agentrun.worker.provider.ModelRequest;
import io.agentrun.worker.provider.ProviderFailures;
import io.agentrun.worker.provider.springai.SpringAiProvider;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import okhttp3.OkHttpClient;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.google.genai.GoogleGenAiChatModel;
import org.springframework.ai.google.genai.GoogleGenAiChatOptions;
import org.springframework.ai.tool.ToolCallback;
import tools.jackson.databind.json.JsonMapper;

/**
 * Google Gemini (the Gemini Developer API, {@code streamGenerateContent}) through Spring AI's Google GenAI model on
 * Google's Gen AI SDK. Thought parts stream as reasoning when the agent sets a thinking budget; a run's JSON Schema goes
 * as {@code responseJsonSchema}. Gemini's function calls carry no id Spring AI keeps: the adapter numbers them
 * ({@code call_0}…), and Gemini matches a result to its call by the tool's name and order.
 */
public final class GeminiProvider implements SpringAiProvider {

    static final String DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com";
    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    /** The SDK's HTTP client: it follows no redirect (the key is a header OkHttp would carry to another host). */
    private final OkHttpClient http;

    /** @param readTimeout the longest silence of a stream */
    public GeminiProvider(Duration connectTimeout, Duration readTimeout) {
        this.http = new OkHttpClient.Builder().followRedirects(false).followSslRedirects(false)
                .connectTimeout(connectTimeout).readTimeout(readTimeout).build();
    }

    /** One attempt per call: the run loop owns retries. */
    @Override
    public GoogleGenAiChatModel client(AgentDefinition agent, @Nullable String key) {
        Client client = Client.builder().apiKey(key == null ? "" : key).vertexAI(false)
                .httpOptions(HttpOptions.builder().baseUrl(agent.baseUrl() != null ? agent.baseUrl() : DEFAULT_BASE_URL)
                        .retryOptions(HttpRetryOptions.builder().attempts(1).build()).build())
                .clientOptions(ClientOptions.builder().customHttpClient(http).build())
                .build();
        return GoogleGenAiChatModel.builder().genAiClient(client)
                .options(GoogleGenAiChatOptions.builder().model(agent.model()).build()).build();
    }

    @Override
    public ChatOptions options(ModelRequest request, List<ToolCallback> tools) {
        AgentDefinition agent = request.agent();
        var options = GoogleGenAiChatOptions.builder().model(agent.model()).temperature(agent.temperature())
                .maxOutputTokens(agent.maxOutputTokens()).toolCallbacks(tools);
        if (!tools.isEmpty() && !request.mayCallTools()) {
            options.toolChoice(GoogleGenAiChatOptions.ToolChoice.builder().mode(GoogleGenAiChatOptions.ToolChoice.Mode.NONE).build());
        }
        if (agent.thinkingBudget() != null) {
            options.thinkingBudget(agent.thinkingBudget()).includeThoughts(true);
        }
        if (request.responseFormat() != null) {
            options.responseMimeType("application/json").responseSchema(request.responseFormat().schema().toString());
        }
        return options.build();
    }

    @Override
    public String thinking(AssistantMessage chunk, String soFar) {
        return isThought(chunk) && chunk.getText() != null ? chunk.getText() : "";
    }

    @Override
    public boolean isThought(AssistantMessage chunk) {
        return Boolean.TRUE.equals(chunk.getMetadata().get("isThought"));
    }

    /** Gemini takes a function's response as a JSON object: the output text goes as its {@code result}. */
    @Override
    public String toolResult(String output) {
        return MAPPER.writeValueAsString(Map.of("result", output));
    }

    /** Spring AI wraps the SDK's failure ("Failed to generate content"): the cause says what happened. */
    @Override
    public ModelException failure(RuntimeException error, @Nullable String key) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof ApiException api) {
                return ProviderFailures.status(name(), api.code(), String.valueOf(api.message()), null, key);
            }
            if (cause instanceof tools.jackson.core.JacksonException || cause instanceof com.fasterxml.jackson.core.JsonProcessingException) {
                return ProviderFailures.malformed(name(), String.valueOf(cause.getMessage()));
            }
        }
        return ProviderFailures.connection(name(), error);
    }

    @Override
    public String name() {
        return "gemini";
    }
}
