package io.agentrun.api.admin;

import io.agentrun.api.sse.SseWriter;
import io.agentrun.model.event.EventType;
import io.agentrun.replay.ReplayFormat;
import io.agentrun.replay.ReplayedEvent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.BooleanSupplier;

/**
 * One run's records written as SSE: {@code id} the record's offset, {@code event} its type, {@code data} its records
 * line. Done at the run's {@code run_end}, at the connection's deadline or when the node shuts down (the reader then
 * joins again past its last id). A comment goes out when nothing else has for {@link #KEEPALIVE}, so a reader that left is found by the write
 * failing ({@link UncheckedIOException}) rather than by a run that may wait an hour for a person.
 */
final class RecordStream {

    static final Duration KEEPALIVE = Duration.ofSeconds(15);

    private final SseWriter out;
    private final Instant deadline;
    private final Clock clock;
    private final BooleanSupplier stopping;
    private Instant lastWrite;
    private boolean ended;

    RecordStream(SseWriter out, Duration longest, Clock clock, BooleanSupplier stopping) {
        this.out = out;
        this.clock = clock;
        this.stopping = stopping;
        this.lastWrite = clock.instant();
        this.deadline = lastWrite.plus(longest);
    }

    /** A first comment, so the reader has the answer's headers before the run's next event. */
    void open() {
        write(sse -> sse.comment("records of the event topic"));
    }

    void send(ReplayedEvent record) {
        String line = ReplayFormat.RECORDS.render(record); // the records line with its newline, which ends the data
        write(sse -> sse.event(record.offset(), record.event().type().wireName(), line.substring(0, line.length() - 1)));
        ended |= record.event().type() == EventType.RUN_END;
    }

    /** Asked between polls of the topic: false once the run ended, the deadline passed or the node is stopping. */
    boolean keepGoing() {
        if (ended || stopping.getAsBoolean() || clock.instant().isAfter(deadline)) {
            return false;
        }
        if (clock.instant().isAfter(lastWrite.plus(KEEPALIVE))) {
            write(SseWriter::keepalive);
        }
        return true;
    }

    private interface Write {
        void to(SseWriter sse) throws IOException;
    }

    private void write(Write write) {
        try {
            write.to(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        lastWrite = clock.instant();
    }
}
