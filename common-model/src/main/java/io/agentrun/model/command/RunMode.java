package io.agentrun.model.command;

/** How the caller consumes a run; a one-off run has no stored thread. */
public enum RunMode {
    /** Streamed to the caller as it runs. */
    STREAM,
    /** The caller waits for the final output; no stored thread. */
    ONE_OFF,
    /** Nobody waits: accepted with 202, read or joined later, reported by webhook. Has a thread, like a stream. */
    BACKGROUND
}
