package io.agentrun.model.event;

import io.agentrun.model.command.RunInput;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * The typed {@code data} of an event; {@link #type()} is the envelope's {@code type}.
 * See {@link RunEvent} for the order in which a client sees them.
 */
public sealed interface EventData {

    EventType type();

    /**
     * The run began (again). {@code attempt} is 1 on first delivery; 2 or more after a worker failed
     * mid-run and the command was redelivered — clients discard partial output of earlier attempts.
     * {@code input} is what the caller asked, so the event topic alone can rebuild a thread's history
     * and an operator replaying a thread sees each question next to its answer; {@code metadata} is the
     * request's metadata. {@code trace_id} is the OpenTelemetry trace the run belongs to (api → worker →
     * relay), so a support request quoting it can be followed across services; absent when not traced.
     */
    record RunStart(@Nullable String threadId, String runId, String agentId, int attempt, RunInput input,
            Map<String, Object> metadata, @Nullable String traceId) implements EventData {
        /** Without a trace (tracing off, or a run that was never traced). */
        public RunStart(@Nullable String threadId, String runId, String agentId, int attempt, RunInput input,
                Map<String, Object> metadata) {
            this(threadId, runId, agentId, attempt, input, metadata, null);
        }

        public RunStart {
            Objects.requireNonNull(runId, "runId");
            metadata = metadata == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
            if (attempt < 1) {
                throw new IllegalArgumentException("attempt starts at 1");
            }
        }

        @Override
        public EventType type() {
            return EventType.RUN_START;
        }
    }

    /** A piece of the model's reasoning, shown as it arrives. */
    record ThinkingPart(String text) implements EventData {
        @Override
        public EventType type() {
            return EventType.THINKING_PART;
        }
    }

    /** A piece of assistant text; concatenating a message's deltas gives its {@code message_final} content. */
    record MessageDelta(String messageId, String delta) implements EventData {
        @Override
        public EventType type() {
            return EventType.MESSAGE_DELTA;
        }
    }

    /**
     * A complete assistant message, stored in the thread history. {@code cancelled} is {@code true} (and
     * otherwise absent) for the part of a message said before its run was cancelled. {@code output_json} is the
     * message parsed, when the run asked for an answer in a JSON Schema and this message is that answer, validated.
     * {@code rejected} is {@code true} (and otherwise absent) for an answer that did not match the run's JSON Schema:
     * the model is asked again (or the run fails), and the message is not kept in the thread's history.
     */
    record MessageFinal(String messageId, String content, Usage usage, @Nullable Boolean cancelled, @Nullable JsonNode outputJson,
            @Nullable Boolean rejected) implements EventData {
        public MessageFinal(String messageId, String content, Usage usage) {
            this(messageId, content, usage, null, null, null);
        }

        public MessageFinal(String messageId, String content, Usage usage, @Nullable Boolean cancelled) {
            this(messageId, content, usage, cancelled, null, null);
        }

        public MessageFinal(String messageId, String content, Usage usage, @Nullable Boolean cancelled, @Nullable JsonNode outputJson) {
            this(messageId, content, usage, cancelled, outputJson, null);
        }

        /** An answer out of the run's JSON Schema: streamed, said in full, and kept out of the history. */
        public static MessageFinal rejected(String messageId, String content, Usage usage) {
            return new MessageFinal(messageId, content, usage, null, null, true);
        }

        public boolean wasCancelled() {
            return Boolean.TRUE.equals(cancelled);
        }

        public boolean wasRejected() {
            return Boolean.TRUE.equals(rejected);
        }

        @Override
        public EventType type() {
            return EventType.MESSAGE_FINAL;
        }
    }

    /** The agent calls a tool; {@code arguments} is the JSON object the model produced. */
    record ToolStart(String toolCallId, String name, JsonNode arguments) implements EventData {
        @Override
        public EventType type() {
            return EventType.TOOL_START;
        }
    }

    /** A tool call finished; a failing tool reports {@code is_error: true} and its message as output. */
    record ToolEnd(String toolCallId, String name, String output, boolean isError, long durationMs)
            implements EventData {
        @Override
        public EventType type() {
            return EventType.TOOL_END;
        }
    }

    /** Something went wrong; {@code retryable} says whether the same request may succeed later. Followed by {@code run_end}. */
    record RunError(String code, String message, boolean retryable) implements EventData {
        @Override
        public EventType type() {
            return EventType.ERROR;
        }
    }

    /**
     * The model called a tool that waits for a person's decision: the run is {@code waiting}, no worker holds it, and
     * it goes on (on any worker, the next attempt, the next seq) once someone decides at
     * {@code POST /api/v1/threads/{thread}/runs/{run}/approvals/{tool_call_id}}, or is denied at {@code deadline}.
     * {@code deciders} says which credentials may decide ({@code secret_key}, {@code session}, and
     * {@code publishable_key} when the agent allows it). {@code checkpoint} is where the run resumes from (its
     * conversation so far, for agentrun's workers): in the event topic, never on a client surface, where it is
     * absent.
     */
    record ApprovalRequired(String toolCallId, String name, JsonNode arguments, Instant deadline, List<String> deciders,
            @Nullable JsonNode checkpoint) implements EventData {
        public ApprovalRequired {
            deciders = List.copyOf(deciders);
        }

        /** This event as clients see it: without the checkpoint. */
        public ApprovalRequired withoutCheckpoint() {
            return new ApprovalRequired(toolCallId, name, arguments, deadline, deciders, null);
        }

        @Override
        public EventType type() {
            return EventType.APPROVAL_REQUIRED;
        }
    }

    /**
     * The first event of the attempt that resumes a run after {@link ApprovalRequired}: what was decided, why, and by
     * whom ({@code key_…}, {@code session:<subject>}, or {@code deadline} when nobody decided in time). An approved
     * call then runs ({@code tool_start}/{@code tool_end}); a denied one does not, and the model is told the reason.
     */
    record ApprovalDecided(String toolCallId, String name, String decision, String reason, String decidedBy) implements EventData {
        public static final String APPROVE = "approve";
        public static final String DENY = "deny";

        public boolean approved() {
            return APPROVE.equals(decision);
        }

        @Override
        public EventType type() {
            return EventType.APPROVAL_DECIDED;
        }
    }

    /**
     * Always the last event of a run. {@code output} is the final assistant text ({@code ""} when none);
     * {@code output_json} that text parsed, when the run asked for a JSON Schema answer and completed.
     */
    record RunEnd(RunStatus status, String output, Usage usage, long durationMs, @Nullable JsonNode outputJson) implements EventData {
        public RunEnd(RunStatus status, String output, Usage usage, long durationMs) {
            this(status, output, usage, durationMs, null);
        }

        public RunEnd {
            if (!status.isTerminal()) {
                throw new IllegalArgumentException("run_end needs a final status, not " + status);
            }
        }

        @Override
        public EventType type() {
            return EventType.RUN_END;
        }
    }
}
