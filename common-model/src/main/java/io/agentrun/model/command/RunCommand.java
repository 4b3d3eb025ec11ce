package io.agentrun.model.command;

import io.agentrun.model.naming.Topics;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The record an api node writes to {@code agentrun.run-commands} and a worker executes.
 *
 * @param runId      the run to execute ({@code run_…})
 * @param threadId   the thread it continues or starts; {@code null} for one-off runs
 * @param projectId  the project everything is scoped to
 * @param agentId    the agent definition to run
 * @param mode       streaming, one-off or background
 * @param input      what the caller asked
 * @param metadata   the caller's free-form metadata: kept with the run, given to tools, shown to the model
 *                   only when the agent says so
 * @param createdAt  when the api node accepted the request
 */
public record RunCommand(
        String runId,
        @Nullable String threadId,
        String projectId,
        String agentId,
        RunMode mode,
        RunInput input,
        Map<String, Object> metadata,
        Instant createdAt) {

    public RunCommand {
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(projectId, "projectId");
        Objects.requireNonNull(agentId, "agentId");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(input, "input");
        metadata = metadata == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
        Objects.requireNonNull(createdAt, "createdAt");
        if (mode != RunMode.ONE_OFF && threadId == null) {
            throw new IllegalArgumentException("a " + mode + " run needs a thread id");
        }
    }

    /** Kafka record key: the thread id, so a thread's commands and events stay ordered; one-off runs use the run id. */
    public String partitionKey() {
        return Topics.partitionKey(threadId, runId);
    }
}
