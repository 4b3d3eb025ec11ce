package io.agentrun.worker.provider;

import java.util.List;

/** A message of the conversation as every provider gets it, before each provider's own wire format. */
public sealed interface ModelMessage {

    /**
     * The caller's turn: text, view URLs of attached files, and — for the turn being run — the files themselves.
     * Earlier turns keep only their URLs, which have expired; providers never see the URLs (they are credentials).
     */
    record User(String text, List<String> images, List<String> documents, List<String> audios,
            List<Attachment> attachments) implements ModelMessage {
        public User {
            images = List.copyOf(images);
            documents = List.copyOf(documents);
            audios = List.copyOf(audios);
            attachments = List.copyOf(attachments);
        }

        public User(String text, List<String> images, List<String> documents, List<String> audios) {
            this(text, images, documents, audios, List.of());
        }

        /** How a request to reshape an answer begins ({@link #schemaRetry}). */
        public static final String SCHEMA_RETRY = "Your answer does not match the JSON Schema: ";

        public static User text(String text) {
            return new User(text, List.of(), List.of(), List.of());
        }

        /** The run's own turn after an answer that did not match its JSON Schema: what was wrong, and one more try. */
        public static User schemaRetry(List<String> problems) {
            return text(SCHEMA_RETRY + String.join("; ", problems) + ". Answer again with only the JSON value, corrected.");
        }

        /** Whether this turn is the run's own {@link #schemaRetry}, not the caller's. */
        public boolean isSchemaRetry() {
            return attachments.isEmpty() && text.startsWith(SCHEMA_RETRY);
        }
    }

    /** What the model said: text, tool calls, and reasoning that some providers want back in the next step. */
    record Assistant(String text, List<ToolCall> toolCalls, List<ThinkingBlock> thinking) implements ModelMessage {
        public Assistant {
            toolCalls = List.copyOf(toolCalls);
            thinking = List.copyOf(thinking);
        }

        public static Assistant text(String text) {
            return new Assistant(text, List.of(), List.of());
        }
    }

    /** The result of one tool call, answering the call with the same id. */
    record ToolResult(String toolCallId, String name, String output, boolean isError) implements ModelMessage {
    }
}
