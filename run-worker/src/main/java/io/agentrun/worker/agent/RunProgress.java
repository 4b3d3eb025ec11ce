package io.agentrun.worker.agent;

import io.agentrun.model.event.Usage;

/** What a run has produced so far: the text of its latest assistant message and the tokens spent. */
public final class RunProgress {

    private String lastText = "";
    private Usage usage = Usage.NONE;

    void answered(String text) {
        lastText = text;
    }

    void spent(Usage step) {
        usage = usage.plus(step);
    }

    /** The output a run reports when it ends now: its latest assistant text, possibly partial. */
    public String output() {
        return lastText;
    }

    public Usage usage() {
        return usage;
    }
}
