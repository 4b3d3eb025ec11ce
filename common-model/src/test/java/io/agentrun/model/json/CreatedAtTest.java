package io.agentrun.model.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class CreatedAtTest {

    @Test
    void readsTheCreatedAtOfAnEnvelopeTheCodecWrote() {
        Instant at = Instant.parse("2026-11-25T10:11:12.345Z");
        String json = new JsonCodec().encodeToString(new RunEvent(3, "run_1", null, "p", "a", at, new EventData.MessageDelta("msg_1", "hi")));

        assertThat(CreatedAt.millis(json)).isEqualTo(at.toEpochMilli());
        assertThat(CreatedAt.millis("{\"type\":\"x\"}")).as("none").isEqualTo(-1);
        assertThat(CreatedAt.millis("{\"created_at\":\"soon\"}")).as("unreadable").isEqualTo(-1);
    }

    @Test
    void readsCreatedAtAsInstantParseDoes() {
        SplittableRandom random = new SplittableRandom(14);
        for (int i = 0; i < 10_000; i++) {
            // 1970 .. 2200, truncated to the millisecond as the worker stamps it; every 10th on a whole second
            Instant at = Instant.ofEpochMilli(random.nextLong(7_258_118_400_000L));
            if (i % 10 == 0) {
                at = at.truncatedTo(ChronoUnit.SECONDS);
            }
            String text = "x\"" + at + "\"y";
            assertThat(CreatedAt.epochMillis(text, 2, text.length() - 2)).as(at.toString()).isEqualTo(at.toEpochMilli());
        }
    }

    @Test
    void otherFormsGoToInstantParse() {
        String micros = "2026-11-23T20:01:02.123456Z";
        assertThat(CreatedAt.epochMillis(micros, 0, micros.length())).isEqualTo(Instant.parse(micros).toEpochMilli());
        String garbage = "2026-11-23T2x:01:02.123Z";
        assertThatThrownBy(() -> CreatedAt.epochMillis(garbage, 0, garbage.length())).isInstanceOf(NumberFormatException.class);
        String notATime = "yesterday";
        assertThatThrownBy(() -> CreatedAt.epochMillis(notATime, 0, notATime.length())).isInstanceOf(DateTimeParseException.class);
    }
}
