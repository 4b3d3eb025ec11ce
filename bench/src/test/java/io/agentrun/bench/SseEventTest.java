package io.agentrun.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.agentrun.model.json.JsonCodec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseEventTest {

    @Test
    void readsTheEnvelopeFieldsNotThoseInData() {
        SseEvent event = SseEvent.parse("{\"type\":\"message_delta\",\"seq\":12,\"run_id\":\"run_1\",\"thread_id\":\"thr_1\","
                + "\"project_id\":\"demo\",\"agent_id\":\"a\",\"created_at\":\"2026-11-22T10:00:00.123Z\","
                + "\"data\":{\"message_id\":\"msg_1\",\"delta\":\"\\\"seq\\\":99 \\\"type\\\":\\\"run_end\\\"\"}}");
        assertThat(event.seq()).isEqualTo(12);
        assertThat(event.type()).isEqualTo("message_delta");
        assertThat(event.createdAtMillis()).isEqualTo(Instant.parse("2026-11-22T10:00:00.123Z").toEpochMilli());
        assertThat(event.isRunEnd()).isFalse();
    }

    @Test
    void refusesAnEnvelopeWithoutSeq() {
        assertThatThrownBy(() -> SseEvent.parse("{\"type\":\"run_end\",\"created_at\":\"2026-11-22T10:00:00Z\"}"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("seq");
    }

    @Test
    void theScriptPlaysEnvelopesTheParserAndAWatchAccept() throws InterruptedException {
        Script script = new Script(new JsonCodec(), 5, 2);
        List<String> envelopes = new ArrayList<>();
        script.play("bench", "run_x", "thr_x", 0, envelopes::add);
        // "Echo #1: word1 … word5" is 7 words: 4 deltas, plus run_start, message_final, run_end
        assertThat(envelopes).hasSize(script.eventsPerRun()).hasSize(7);
        RunWatch watch = new RunWatch();
        envelopes.forEach(e -> watch.onEvent(SseEvent.parse(e)));
        watch.onEvent(SseEvent.parse(envelopes.get(3)));
        assertThat(watch.ended()).isTrue();
        assertThat(watch.events()).isEqualTo(7);
        assertThat(watch.duplicated()).isEqualTo(1);
        assertThat(watch.missing()).isZero();
        assertThat(watch.delivery.size()).isEqualTo(7);
    }

    @Test
    void aGapCountsAsMissing() {
        RunWatch watch = new RunWatch();
        watch.onEvent(new SseEvent(0, "run_start", System.currentTimeMillis()));
        watch.onEvent(new SseEvent(3, "run_end", System.currentTimeMillis()));
        assertThat(watch.missing()).isEqualTo(2);
        assertThat(watch.ended()).isTrue();
    }

    @Test
    void chunksKeepTheScriptedModelsSplit() {
        assertThat(Script.chunks("Echo #1: a b c", 2)).containsExactly("Echo #1: ", "a b ", "c");
    }
}
