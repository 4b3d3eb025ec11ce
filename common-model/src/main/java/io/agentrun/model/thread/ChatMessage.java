package io.agentrun.model.thread;

import io.agentrun.model.command.RunInput;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One entry of a thread's history, as stored in {@code ar:thread:{id}:messages}: what the next turn's
 * model sees. {@code status} is {@code cancelled} for an assistant message cut short by a cancel.
 */
public record ChatMessage(
        Role role,
        String content,
        String runId,
        @Nullable String messageId,
        List<String> images,
        List<String> documents,
        List<String> audios,
        @Nullable String status,
        Instant createdAt) {

    public enum Role {
        USER,
        ASSISTANT
    }

    public ChatMessage {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(content, "content");
        Objects.requireNonNull(runId, "runId");
        images = images == null ? List.of() : List.copyOf(images);
        documents = documents == null ? List.of() : List.copyOf(documents);
        audios = audios == null ? List.of() : List.copyOf(audios);
    }

    public static ChatMessage user(String runId, RunInput input, Instant at) {
        return new ChatMessage(Role.USER, input.query(), runId, null, input.images(), input.documents(), input.audios(), null, at);
    }

    public static ChatMessage assistant(String runId, String messageId, String content, Instant at) {
        return new ChatMessage(Role.ASSISTANT, content, runId, messageId, null, null, null, null, at);
    }

    public static ChatMessage cancelledAssistant(String runId, String messageId, String content, Instant at) {
        return new ChatMessage(Role.ASSISTANT, content, runId, messageId, null, null, null, "cancelled", at);
    }
}
