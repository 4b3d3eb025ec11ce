package io.agentrun.worker.agent;

import io.agentrun.model.event.Usage;
import java.util.Optional;

/**
 * What a run has produced so far: the text of its latest assistant message — including the one still
 * streaming, so a cancelled run keeps what it already said — and the tokens spent.
 */
final class RunProgress {

    private String lastText = "";
    private String streamingId = "";
    private CharSequence streaming = "";
    private Usage usage = Usage.NONE;

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
        lastText = text;
        streaming = "";
    }

    void spent(Usage step) {
        usage = usage.plus(step);
    }

    /** The output a run reports when it ends now: its latest assistant text, possibly partial. */
    public String output() {
        return streaming.isEmpty() ? lastText : streaming.toString();
    }

    public Usage usage() {
        return usage;
    }
}
