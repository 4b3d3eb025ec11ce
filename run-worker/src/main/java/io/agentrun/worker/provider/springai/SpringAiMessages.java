package io.agentrun.worker.provider.springai;

import io.agentrun.worker.provider.Attachment;
import io.agentrun.worker.provider.Attachments;
import io.agentrun.worker.provider.ModelMessage;
import io.agentrun.worker.provider.ModelRequest;
import io.agentrun.worker.provider.ThinkingBlock;
import io.agentrun.worker.provider.ToolSpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.content.Media;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.util.MimeTypeUtils;

/** A step of ours in Spring AI's words: the conversation as its messages, our tools as declarations only. */
final class SpringAiMessages {

    /**
     * Where Spring AI's Gemini model keeps a turn's thought signatures, which Gemini wants back on the turn's function
     * calls in the next step (Gemini 3 refuses the step without them); they travel as signed {@link ThinkingBlock}s.
     */
    static final String THOUGHT_SIGNATURES = "thoughtSignatures";

    private SpringAiMessages() {
    }

    static List<Message> of(ModelRequest request, SpringAiProvider provider) {
        List<Message> messages = new ArrayList<>();
        if (!request.system().isEmpty()) {
            messages.add(new SystemMessage(request.system()));
        }
        for (ModelMessage message : request.messages()) {
            Message next = of(message, provider);
            // one message for a turn's tool results, as Gemini wants them (one content); OpenAI's client splits it again
            if (next instanceof ToolResponseMessage results && messages.getLast() instanceof ToolResponseMessage earlier) {
                messages.set(messages.size() - 1, ToolResponseMessage.builder()
                        .responses(java.util.stream.Stream.concat(earlier.getResponses().stream(), results.getResponses().stream()).toList()).build());
            } else {
                messages.add(next);
            }
        }
        return messages;
    }

    private static Message of(ModelMessage message, SpringAiProvider provider) {
        return switch (message) {
            case ModelMessage.User user -> UserMessage.builder().text(user.text() + Attachments.note(user)).media(media(user)).build();
            case ModelMessage.Assistant assistant -> AssistantMessage.builder().content(assistant.text())
                    .toolCalls(assistant.toolCalls().stream()
                            .map(call -> new AssistantMessage.ToolCall(call.id(), "function", call.name(), call.arguments())).toList())
                    .properties(signatures(assistant))
                    .build();
            case ModelMessage.ToolResult result -> ToolResponseMessage.builder().responses(List.of(new ToolResponseMessage.ToolResponse(
                    result.toolCallId(), result.name(), provider.toolResult(result.isError() ? "Error: " + result.output() : result.output()))))
                    .build();
        };
    }

    private static Map<String, Object> signatures(ModelMessage.Assistant assistant) {
        List<byte[]> signed = assistant.thinking().stream().filter(block -> block.signature() != null && block.text().isEmpty())
                .map(block -> Base64.getDecoder().decode(block.signature())).toList();
        return signed.isEmpty() ? Map.of() : Map.of(THOUGHT_SIGNATURES, signed);
    }

    /** Images and audio go inline as bytes; documents are in the text ({@link Attachments#note}). */
    private static List<Media> media(ModelMessage.User user) {
        return user.attachments().stream().filter(file -> file.kind() != Attachment.Kind.DOCUMENT)
                .map(file -> Media.builder().mimeType(MimeTypeUtils.parseMimeType(file.contentType())).data(file.bytes())
                        .name(file.filename()).build())
                .toList();
    }

    /** The run's tools as Spring AI declares them; never called through Spring AI, the run loop runs them. */
    static List<ToolCallback> tools(ModelRequest request) {
        return request.tools().stream().map(Declared::new).map(ToolCallback.class::cast).toList();
    }

    private record Declared(ToolSpec spec) implements ToolCallback {
        @Override
        public ToolDefinition getToolDefinition() {
            return ToolDefinition.builder().name(spec.name()).description(spec.description())
                    .inputSchema(spec.parameters().toString()).build();
        }

        @Override
        public String call(String toolInput) {
            throw new UnsupportedOperationException("tools run in the run loop, not in Spring AI: " + spec.name());
        }
    }
}
