package io.agentrun.client;

import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One message of a thread's history.
 *
 * @param role   {@code user} or {@code assistant}
 * @param status {@code cancelled} for the partial answer of a cancelled run
 */
public record ThreadMessage(String role, String content, String runId, @Nullable String messageId, List<String> images,
        List<String> documents, List<String> audios, @Nullable String status, Instant createdAt) {

    public ThreadMessage {
        images = images == null ? List.of() : List.copyOf(images);
        documents = documents == null ? List.of() : List.copyOf(documents);
        audios = audios == null ? List.of() : List.copyOf(audios);
    }
}
