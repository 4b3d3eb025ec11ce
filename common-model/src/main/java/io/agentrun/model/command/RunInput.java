package io.agentrun.model.command;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the caller asked an agent: the query, view URLs of files, names of stored contexts, and free
 * metadata echoed nowhere but kept with the run.
 */
public record RunInput(
        String query,
        List<String> images,
        List<String> documents,
        List<String> audios,
        List<String> contexts,
        Map<String, Object> metadata) {

    public RunInput {
        Objects.requireNonNull(query, "query");
        images = images == null ? List.of() : List.copyOf(images);
        documents = documents == null ? List.of() : List.copyOf(documents);
        audios = audios == null ? List.of() : List.copyOf(audios);
        contexts = contexts == null ? List.of() : List.copyOf(contexts);
        metadata = metadata == null ? Map.of() : Map.copyOf(metadata);
    }

    public static RunInput ofQuery(String query) {
        return new RunInput(query, null, null, null, null, null);
    }
}
