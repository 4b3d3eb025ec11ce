package io.agentrun.worker.tool;

/** A tool failed in a way worth telling the model (its message becomes the tool's output). */
public final class ToolException extends Exception {

    public ToolException(String message) {
        super(message, null, false, false);
    }
}
