package io.agentrun.api.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.agentrun.api.sse.SseWriter;
import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.event.Usage;
import io.agentrun.replay.ReplayedEvent;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class RecordStreamTest {

    private static final Instant T0 = Instant.parse("2026-11-29T07:00:00Z");

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final MovingClock clock = new MovingClock();
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final RecordStream stream = new RecordStream(SseWriter.over(out), Duration.ofMinutes(5), clock, stopping::get);

    @Test
    void eachRecordIsAMessageWhoseIdIsItsOffset() {
        stream.send(record(41, 3, new EventData.MessageDelta("msg_a", "hi")));

        assertThat(written()).isEqualTo("id: 41\nevent: message_delta\ndata: {\"partition\":2,\"offset\":41,\"event\":{\"seq\":3}}\n\n");
        assertThat(stream.keepGoing()).isTrue();
    }

    @Test
    void theRunsEndEndsTheStream() {
        stream.send(record(42, 4, new EventData.RunEnd(RunStatus.COMPLETED, "done", Usage.NONE, 5)));

        assertThat(stream.keepGoing()).isFalse();
    }

    @Test
    void aQuietRunGetsAKeepaliveCommentAndTheDeadlineEndsIt() {
        clock.now = T0.plus(RecordStream.KEEPALIVE).plusSeconds(1);
        assertThat(stream.keepGoing()).isTrue();
        assertThat(written()).isEqualTo(": keepalive\n\n");

        clock.now = T0.plus(Duration.ofMinutes(5)).plusSeconds(1);
        assertThat(stream.keepGoing()).isFalse();
    }

    @Test
    void aNodeShuttingDownEndsTheStream() {
        stopping.set(true);

        assertThat(stream.keepGoing()).isFalse();
    }

    @Test
    void aReaderThatLeftIsFoundByTheWriteFailing() {
        RecordStream gone = new RecordStream(SseWriter.over(new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("Broken pipe");
            }
        }), Duration.ofMinutes(5), clock, () -> false);

        assertThatThrownBy(gone::open).isInstanceOf(UncheckedIOException.class);
    }

    private String written() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private static ReplayedEvent record(long offset, long seq, EventData data) {
        RunEvent event = new RunEvent(seq, 1, "run_a", "thr_a", "demo", "assistant", T0, data);
        return new ReplayedEvent(2, offset, "{\"seq\":" + seq + "}", event);
    }

    /** A clock the test moves. */
    private static final class MovingClock extends Clock {
        Instant now = T0;

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
