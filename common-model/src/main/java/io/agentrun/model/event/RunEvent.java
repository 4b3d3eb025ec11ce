package io.agentrun.model.event;

import io.agentrun.model.naming.Topics;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The event envelope: one JSON object, the same in Kafka, in Redis and on the wire.
 *
 * <pre>{@code
 * {"type":"message_delta","seq":3,"run_id":"run_…","thread_id":"thr_…","project_id":"demo",
 *  "agent_id":"assistant","created_at":"2026-11-22T10:00:00.123Z","data":{"message_id":"msg_…","delta":"Hel"}}
 * }</pre>
 *
 * <h2>What a client sees</h2>
 * {@code seq} starts at 0 for each run and increases by one per event, without gaps. A run's events are:
 * <ol>
 *   <li>{@code run_start} (seq 0) — ids and {@code attempt};</li>
 *   <li>any number of, in the order the agent produced them:
 *     {@code thinking_part}; {@code message_delta}… followed by that message's {@code message_final};
 *     {@code tool_start} followed by its {@code tool_end};</li>
 *   <li>on failure: one {@code error};</li>
 *   <li>{@code run_end} — always last, with {@code status} {@code completed}, {@code failed},
 *     {@code cancelled} or {@code timed_out}.</li>
 * </ol>
 * A {@code run_start} with {@code attempt} ≥ 2 may follow partial output of an earlier attempt (the worker
 * running it died); it continues the same {@code seq} numbering, and clients discard what the earlier
 * attempt said. On SSE each event is {@code id: {seq}}, {@code event: {type}}, {@code data: {envelope}}.
 *
 * <p>{@code epoch} is the run's ownership epoch: every claim of the run by a worker increments it (it equals
 * the {@code attempt} of that worker's {@code run_start}). The relay applies only events of a run's current
 * epoch, so a worker that lost its lease (paused, partitioned) reaches no client and no history. 0 means
 * "written before epochs existed" and is never fenced.
 *
 * @param threadId {@code null} for one-off runs, which have no stored thread
 */
public record RunEvent(
        long seq,
        int epoch,
        String runId,
        @Nullable String threadId,
        String projectId,
        String agentId,
        Instant createdAt,
        EventData data) implements EpochFence.Fenced {

    public RunEvent {
        if (seq < 0) {
            throw new IllegalArgumentException("seq starts at 0");
        }
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch is never negative");
        }
        Objects.requireNonNull(runId, "runId");
        Objects.requireNonNull(projectId, "projectId");
        Objects.requireNonNull(agentId, "agentId");
        Objects.requireNonNull(createdAt, "createdAt");
        Objects.requireNonNull(data, "data");
    }

    /** An event without an ownership epoch (0): tests and tools that are not a worker. */
    public RunEvent(long seq, String runId, @Nullable String threadId, String projectId, String agentId, Instant createdAt,
            EventData data) {
        this(seq, 0, runId, threadId, projectId, agentId, createdAt, data);
    }

    @Override
    public boolean isRunStart() {
        return data instanceof EventData.RunStart;
    }

    public EventType type() {
        return data.type();
    }

    /** Kafka record key: the thread id (one-off runs: the run id). */
    public String partitionKey() {
        return Topics.partitionKey(threadId, runId);
    }
}
