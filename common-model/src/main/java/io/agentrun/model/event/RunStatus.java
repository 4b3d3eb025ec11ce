package io.agentrun.model.event;

import java.util.Locale;

/** Final status of a run, carried by {@code run_end}; plus the states a run passes through before it. */
public enum RunStatus {
    QUEUED(false),
    RUNNING(false),
    /** Paused until a person decides on a tool call ({@code approval_required}); no worker holds it. */
    WAITING(false),
    COMPLETED(true),
    FAILED(true),
    CANCELLED(true),
    TIMED_OUT(true);

    private final boolean terminal;

    RunStatus(boolean terminal) {
        this.terminal = terminal;
    }

    public boolean isTerminal() {
        return terminal;
    }

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static RunStatus fromWireName(String name) {
        return valueOf(name.toUpperCase(Locale.ROOT));
    }
}
