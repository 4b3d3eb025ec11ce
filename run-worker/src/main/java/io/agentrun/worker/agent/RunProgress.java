package io.agentrun.worker.agent;

import io.agentrun.model.event.Usage;

/**
 * What a run has produced so far: the text of its latest assistant message — including the one still
 * streaming, so a cancelled run keeps what it already said — and the tokens spent.
 */
public final class RunProgress {

    private String lastText = "";
    private CharSequence streaming = "";
    private Usage usage = Usage.NONE;

    /** A step starts streaming into {@code text}. */
    void streaming(CharSequence text) {
        streaming = text;
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
