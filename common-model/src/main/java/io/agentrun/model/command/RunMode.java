package io.agentrun.model.command;

/** How the caller consumes a run; a one-off run has no stored thread. */
public enum RunMode {
    STREAM,
    ONE_OFF
}
