package io.agentrun.model.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

class InstantTextTest {

    /** Jackson's own instant handling, which the codec's must match. */
    private static final JsonMapper JACKSON = JsonMapper.builder()
            .disable(tools.jackson.databind.cfg.DateTimeFeature.WRITE_DATES_AS_TIMESTAMPS).build();
    private final JsonCodec codec = new JsonCodec();

    @Test
    void writesAndReadsEveryInstantAsJacksonDoes() {
        SplittableRandom random = new SplittableRandom(29);
        for (int i = 0; i < 20_000; i++) {
            // 1900 .. 2200: before 1970 and at nanosecond precision take Jackson's path, the rest the common one
            Instant at = Instant.ofEpochSecond(random.nextLong(-2_208_988_800L, 7_258_118_400L), random.nextInt(1_000_000_000));
            at = switch (i % 4) {
                case 0 -> at.truncatedTo(ChronoUnit.SECONDS);
                case 1 -> at.truncatedTo(ChronoUnit.MILLIS);
                case 2 -> at.truncatedTo(ChronoUnit.MICROS);
                default -> at;
            };
            String json = codec.mapper().writeValueAsString(at);
            assertThat(json).as(at.toString()).isEqualTo(JACKSON.writeValueAsString(at)).isEqualTo("\"" + at + "\"");
            assertThat(codec.mapper().readValue(json, Instant.class)).isEqualTo(at);
        }
    }

    @Test
    void readsEveryFormItWritesWithoutJacksonsReader() {
        // The api's clock stamps a command to the microsecond: that form must not take DateTimeFormatter's path
        assertThat(InstantText.parseCommon("2026-11-29T07:36:40.123456Z")).isEqualTo(Instant.parse("2026-11-29T07:36:40.123456Z"));
        assertThat(InstantText.parseCommon("2026-11-29T07:36:40.123456789Z")).isEqualTo(Instant.parse("2026-11-29T07:36:40.123456789Z"));
        assertThat(InstantText.parseCommon("2026-11-29T07:36:40.123Z")).isEqualTo(Instant.parse("2026-11-29T07:36:40.123Z"));
        assertThat(InstantText.parseCommon("2026-11-29T07:36:40Z")).isEqualTo(Instant.parse("2026-11-29T07:36:40Z"));
        assertThat(InstantText.parseCommon("2026-11-29T07:36:40.5Z")).as("not a form it writes").isNull();
        assertThat(InstantText.parseCommon("2026-11-29T24:00:00Z")).as("hour 24: Jackson's reader decides").isNull();
        assertThat(InstantText.parseCommon("2026-11-29T07:36:40.12345xZ")).isNull();
    }

    @Test
    void readsOtherFormsWithJacksonsReader() {
        assertThat(codec.mapper().readValue("\"2026-11-26T05:06:07+01:00\"", Instant.class)).isEqualTo(Instant.parse("2026-11-26T04:06:07Z"));
        assertThat(codec.mapper().readValue("1764133567", Instant.class)).isEqualTo(Instant.ofEpochSecond(1_764_133_567L));
        assertThat(codec.mapper().readValue("\"2026-11-26T05:06:07.5Z\"", Instant.class)).isEqualTo(Instant.parse("2026-11-26T05:06:07.500Z"));
        assertThatThrownBy(() -> codec.mapper().readValue("\"2026-13-26T05:06:07Z\"", Instant.class)).as("month 13").isInstanceOf(JacksonException.class);
        assertThatThrownBy(() -> codec.mapper().readValue("\"2026-1x-26T05:06:07Z\"", Instant.class)).isInstanceOf(JacksonException.class);
    }
}
