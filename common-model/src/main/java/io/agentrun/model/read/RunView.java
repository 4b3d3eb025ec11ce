package io.agentrun.model.read;

import io.agentrun.model.event.RunStatus;
import io.agentrun.model.event.Usage;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * A run read back: {@code queued} until a worker starts it, {@code running} ({@code waiting} while a person decides on
 * a tool call), then {@code completed},
 * {@code failed}, {@code cancelled} or {@code timed_out}.
 *
 * @param threadId  null for a one-off run
 * @param mode      {@code stream}, {@code one_off} or {@code background}
 * @param attempt   0 while queued; 2 and more after a worker failed and another took the run over
 * @param startedAt the latest attempt's start; null while queued
 * @param endedAt   null until the run ends
 * @param firstEventAt its first event ({@code run_start} of its first attempt); null while queued. From
 *                  {@code createdAt} to it is the run's time to first event, as {@code agentrun.stream.first_event} times a
 *                  stream's (across the api's and the worker's clocks)
 * @param output    the final answer once the run ended (what a cancelled run had said so far); null before
 * @param outputJson that answer as JSON, when the run asked for one in a JSON Schema ({@code response_format}) and
 *                  completed; null otherwise
 * @param usage     tokens of the whole run once it ended; null before
 * @param error     why it failed (also a refused run: {@code not_queued}); null otherwise
 * @param pendingApproval while the run is {@code waiting}: the tool call it waits for a decision on ({@code tool_call_id},
 *                  {@code name}, {@code arguments}, {@code deadline}, {@code deciders}); null otherwise
 */
public record RunView(String runId, RunStatus status, String agentId, @Nullable String threadId, @Nullable String mode,
        int attempt, Instant createdAt, @Nullable Instant startedAt, @Nullable Instant endedAt, @Nullable Instant firstEventAt, @Nullable String output,
        @Nullable JsonNode outputJson, @Nullable Usage usage, @Nullable Failure error, @Nullable JsonNode pendingApproval) {

    /** The run's error event (or refusal): a stable code and a message for people. */
    public record Failure(String code, String message) {
    }
}
