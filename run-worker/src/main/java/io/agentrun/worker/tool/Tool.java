package io.agentrun.worker.tool;

import java.time.Duration;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * A tool agents may call. Implementations are beans; an agent's {@code tools} allow-list names the ones
 * its model is offered. The run loop enforces the deadline (by interrupting the calling thread) and turns
 * an exception into text for the model and a {@code tool_end} with {@code is_error: true}.
 */
public interface Tool {

    /** The name models call it by: lowercase letters, digits, '_'. */
    String name();

    /** What it does, for the model. */
    String description();

    /** JSON schema of its arguments (an object). */
    JsonNode parameters();

    /** How long one call may take, when the tool says so; else {@code agentrun.worker.tools.call-timeout}. */
    default Optional<Duration> callTimeout() {
        return Optional.empty();
    }

    /**
     * @return the result as text for the model
     * @throws ToolException for a failure the model should read and may correct (bad arguments…)
     * @throws InterruptedException when the deadline passed or the run was cancelled
     */
    String execute(ToolInvocation invocation) throws Exception;
}
