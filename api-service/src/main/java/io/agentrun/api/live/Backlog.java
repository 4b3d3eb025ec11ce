package io.agentrun.api.live;

import io.agentrun.model.json.CodecException;
import io.agentrun.model.event.EpochFence;
import io.agentrun.model.event.EventType;
import io.agentrun.model.json.EventHeader;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.kafka.RunEventLog;
import io.agentrun.platform.store.RunState;
import io.agentrun.platform.store.RunStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A run's events from some seq on, for joins and for gaps the live channel left: the resume buffer
 * first; when the buffer does not have them although the run's state says they exist (the buffer expired,
 * was trimmed, or Redis lost it), the event topic, from the run's first {@code run_start}.
 */
final class Backlog {

    private static final Logger log = LoggerFactory.getLogger(Backlog.class);

    private final ResumeBuffer buffer;
    private final RunStore runs;
    private final RunEventLog eventLog;
    private final JsonCodec codec;

    Backlog(ResumeBuffer buffer, RunStore runs, RunEventLog eventLog, JsonCodec codec) {
        this.buffer = buffer;
        this.runs = runs;
        this.eventLog = eventLog;
        this.codec = codec;
    }

    /** Events read at most per call, so a join of a long run holds a bounded part of it in memory. */
    public static final int CHUNK = 2000;

    /** Up to {@link #CHUNK} events of the run with {@code seq >= fromSeq} that are known now, in order. */
    public List<Frame> from(String runId, long fromSeq) {
        List<Frame> buffered = buffer.from(runId, fromSeq, CHUNK);
        if (startsAt(buffered, fromSeq)) {
            return buffered;
        }
        Optional<RunState> state = runs.find(runId);
        if (state.isEmpty() || state.get().lastSeq() < fromSeq) {
            return buffered; // nothing more exists yet
        }
        // The relay may have applied the event between the two reads: it writes the buffer and last_seq in one
        // script, so the buffer has it now unless it expired, was trimmed or lost. Under load this race was the
        // common case, and each needless Kafka read cost more than a thousand events' forwarding.
        buffered = buffer.from(runId, fromSeq, CHUNK);
        if (startsAt(buffered, fromSeq)) {
            return buffered;
        }
        return fromKafka(state.get(), fromSeq);
    }

    private static boolean startsAt(List<Frame> buffered, long fromSeq) {
        return !buffered.isEmpty() && buffered.getFirst().seq() == fromSeq;
    }

    private List<Frame> fromKafka(RunState state, long fromSeq) {
        log.info("run {}: events from {} are not in the resume buffer; reading them from Kafka", state.runId(), fromSeq);
        List<Logged> logged = new ArrayList<>();
        RunEventLog.From from = RunEventLog.From.offset(state.firstOffset(), state.createdAt().minus(Duration.ofMinutes(1)));
        // Only up to what the relay has applied: an event beyond it may yet be fenced (its worker lost the run
        // while Kafka or Redis was away), and the next attempt then reuses its seq. The rest comes live.
        for (String json : eventLog.read(RunStore.partitionKey(state), from,
                json -> belongs(json, state.runId(), fromSeq, state.lastSeq()), CHUNK)) {
            logged.add(new Logged(codec.peekHeader(json), json));
        }
        // Only what the relay applied: not the events of an epoch a later claim fenced (a worker that lost its lease).
        List<Frame> frames = new ArrayList<>(logged.size());
        for (Logged event : EpochFence.applied(logged)) {
            frames.add(new Frame(event.header.seq(), event.header.type(), event.json));
        }
        return frames;
    }

    private record Logged(EventHeader header, String json) implements EpochFence.Fenced {
        @Override
        public int epoch() {
            return header.epoch();
        }

        @Override
        public long seq() {
            return header.seq();
        }

        @Override
        public boolean isRunStart() {
            return EventType.RUN_START.wireName().equals(header.type());
        }
    }

    private boolean belongs(String json, String runId, long fromSeq, long lastApplied) {
        try {
            EventHeader header = codec.peekHeader(json);
            return header.runId().equals(runId) && header.seq() >= fromSeq && header.seq() <= lastApplied;
        } catch (CodecException e) {
            return false;
        }
    }
}
