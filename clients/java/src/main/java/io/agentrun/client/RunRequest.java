package io.agentrun.client;

import io.agentrun.model.command.ResponseFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What to ask an agent: the body of a run ({@code query}, {@code images}, {@code documents}, {@code audios},
 * {@code contexts}, {@code metadata}, {@code response_format}) and how to send it ({@code threadId} to continue a
 * thread, {@code ifBusy}, the {@code Idempotency-Key}). Immutable; the {@code with…} methods return a copy.
 *
 * <pre>{@code
 * RunRequest.of("Summarise").withThreadId(thread).withDocuments(List.of(viewUrl)).withMetadata(Map.of("page", "home"))
 * }</pre>
 *
 * @param idempotencyKey null: the SDK makes a UUID per call and reuses it on its own retries
 */
public record RunRequest(
        String query,
        @Nullable String threadId,
        List<String> images,
        List<String> documents,
        List<String> audios,
        List<String> contexts,
        @Nullable ResponseFormat responseFormat,
        Map<String, Object> metadata,
        @Nullable IfBusy ifBusy,
        @Nullable String idempotencyKey) {

    /** What a turn on a thread whose run is still going does ({@code ?if_busy=}). */
    public enum IfBusy { REJECT, ENQUEUE, INTERRUPT }

    public RunRequest {
        Objects.requireNonNull(query, "query");
        images = List.copyOf(images);
        documents = List.copyOf(documents);
        audios = List.copyOf(audios);
        contexts = List.copyOf(contexts);
        metadata = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
    }

    public static RunRequest of(String query) {
        return new RunRequest(query, null, List.of(), List.of(), List.of(), List.of(), null, Map.of(), null, null);
    }

    public RunRequest withThreadId(@Nullable String thread) {
        return new RunRequest(query, thread, images, documents, audios, contexts, responseFormat, metadata, ifBusy, idempotencyKey);
    }

    public RunRequest withImages(List<String> viewUrls) {
        return new RunRequest(query, threadId, viewUrls, documents, audios, contexts, responseFormat, metadata, ifBusy, idempotencyKey);
    }

    public RunRequest withDocuments(List<String> viewUrls) {
        return new RunRequest(query, threadId, images, viewUrls, audios, contexts, responseFormat, metadata, ifBusy, idempotencyKey);
    }

    public RunRequest withAudios(List<String> viewUrls) {
        return new RunRequest(query, threadId, images, documents, viewUrls, contexts, responseFormat, metadata, ifBusy, idempotencyKey);
    }

    public RunRequest withContexts(List<String> contextIds) {
        return new RunRequest(query, threadId, images, documents, audios, contextIds, responseFormat, metadata, ifBusy, idempotencyKey);
    }

    /** An answer in this JSON Schema: {@code run_end} and the run's reads then carry {@code output_json}. */
    public RunRequest withResponseFormat(@Nullable ResponseFormat format) {
        return new RunRequest(query, threadId, images, documents, audios, contexts, format, metadata, ifBusy, idempotencyKey);
    }

    public RunRequest withMetadata(Map<String, Object> values) {
        return new RunRequest(query, threadId, images, documents, audios, contexts, responseFormat, values, ifBusy, idempotencyKey);
    }

    public RunRequest withIfBusy(@Nullable IfBusy mode) {
        return new RunRequest(query, threadId, images, documents, audios, contexts, responseFormat, metadata, mode, idempotencyKey);
    }

    /** Your own key, e.g. an order id, so that a retry of yours after a crash gets the same run. */
    public RunRequest withIdempotencyKey(@Nullable String key) {
        return new RunRequest(query, threadId, images, documents, audios, contexts, responseFormat, metadata, ifBusy, key);
    }

    /** The JSON body: only the fields given (the api refuses unknown fields, and empty ones say nothing). */
    Map<String, Object> body() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("query", query);
        putIfAny(body, "images", images);
        putIfAny(body, "documents", documents);
        putIfAny(body, "audios", audios);
        putIfAny(body, "contexts", contexts);
        if (!metadata.isEmpty()) {
            body.put("metadata", metadata);
        }
        if (responseFormat != null) {
            body.put("response_format", responseFormat);
        }
        return body;
    }

    /** {@code ?thread_id=…&if_busy=…}, or "". */
    String queryString() {
        StringBuilder q = new StringBuilder();
        if (threadId != null) {
            q.append("?thread_id=").append(Transport.encode(threadId));
        }
        if (ifBusy != null) {
            q.append(q.isEmpty() ? '?' : '&').append("if_busy=").append(ifBusy.name().toLowerCase(java.util.Locale.ROOT));
        }
        return q.toString();
    }

    String keyOrNew() {
        return idempotencyKey == null ? Transport.newIdempotencyKey() : idempotencyKey;
    }

    private static void putIfAny(Map<String, Object> body, String name, List<String> values) {
        if (!values.isEmpty()) {
            body.put(name, values);
        }
    }
}
