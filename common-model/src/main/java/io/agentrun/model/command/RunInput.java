package io.agentrun.model.command;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What the caller asked an agent: the query, view URLs of files, ids of the project's stored contexts to give the
 * agent, and the shape its answer must have ({@code null}: text).
 */
public record RunInput(
        String query,
        List<String> images,
        List<String> documents,
        List<String> audios,
        List<String> contexts,
        @Nullable ResponseFormat responseFormat) {

    /** An answer in text. */
    public RunInput(String query, List<String> images, List<String> documents, List<String> audios, List<String> contexts) {
        this(query, images, documents, audios, contexts, null);
    }

    public RunInput {
        Objects.requireNonNull(query, "query");
        images = images == null ? List.of() : List.copyOf(images);
        documents = documents == null ? List.of() : List.copyOf(documents);
        audios = audios == null ? List.of() : List.copyOf(audios);
        contexts = contexts == null ? List.of() : List.copyOf(contexts);
    }

    public static RunInput ofQuery(String query) {
        return new RunInput(query, null, null, null, null);
    }
}
