package io.agentrun.model.command;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The record an api node writes to {@code agentrun.run-commands} and a worker executes.
 *
 * @param runId      the run to execute ({@code run_…})
 * @param threadId   the thread it continues or starts; {@code null} for one-off runs
 * @param projectId  the project everything is scoped to
 * @param agentId    the agent definition to run
 * @param mode       streaming or one-off
 * @param input      what the caller asked
 * @param createdAt  when the api node accepted the request
 */
public record RunCommand(
        String runId,
        @Nullable String threadId,
        String projectId,
        String agentId,
        RunMode mode,
        RunInput input,
        Instant createdAt) {

    public RunCommand {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(projectId, "projectId");
        Objects.requireNonNull(agentId, "agentId");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(input, "input");
        Objects.requireNonNull(createdAt, "createdAt");
        if (mode == RunMode.STREAM && threadId == null) {
            throw new IllegalArgumentException("a streaming run needs a thread id");
        }
    }

    /** Kafka record key: the thread id, so a thread's commands and events stay ordered; one-off runs use the run id. */
    public String partitionKey() {
        return threadId != null ? threadId : runId;
    }
}
