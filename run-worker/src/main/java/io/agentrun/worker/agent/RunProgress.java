package io.agentrun.worker.agent;

import io.agentrun.model.event.Usage;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * What a run has produced so far: the text of its latest assistant message — including the one still
 * streaming, so a cancelled run keeps what it already said — and the tokens spent.
 */
final class RunProgress {

    private String lastText = "";
    private String streamingId = "";
    private CharSequence streaming = "";
    private Usage usage = Usage.NONE;
    private @Nullable JsonNode outputJson;

    /** A step starts streaming message {@code messageId} into {@code text}. */
    void streaming(String messageId, CharSequence text) {
        streamingId = messageId;
        streaming = text;
    }

    /** The message cut short, if the run stopped while one was streaming: its id and what it said. */
    public Optional<Partial> partial() {
        return streaming.isEmpty() ? Optional.empty() : Optional.of(new Partial(streamingId, streaming.toString()));
    }

    /** Part of an assistant message. */
    public record Partial(String messageId, String text) {
    }

    void answered(String text) {
        answered(text, null);
    }

    /** @param json the answer parsed, when the run asked for one in a JSON Schema and it matched */
    void answered(String text, @Nullable JsonNode json) {
        lastText = text;
        outputJson = json;
        streaming = "";
    }

    void spent(Usage step) {
        usage = usage.plus(step);
    }

    /** The output a run reports when it ends now: its latest assistant text, possibly partial. */
    public String output() {
        return streaming.isEmpty() ? lastText : streaming.toString();
    }

    /** The latest answer as JSON, when it matched the run's schema ({@code null} otherwise, or once text followed it). */
    public @Nullable JsonNode outputJson() {
        return streaming.isEmpty() ? outputJson : null;
    }

    public Usage usage() {
        return usage;
    }
}
