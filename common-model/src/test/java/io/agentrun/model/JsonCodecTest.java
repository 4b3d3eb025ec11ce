package io.agentrun.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.agentrun.model.command.RunCommand;
import io.agentrun.model.command.RunInput;
import io.agentrun.model.command.RunMode;
import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import io.agentrun.model.event.RunStatus;
import io.agentrun.model.event.Usage;
import io.agentrun.model.json.CodecException;
import io.agentrun.model.json.JsonCodec;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

class JsonCodecTest {

    private final JsonCodec codec = new JsonCodec();
    private static final Instant AT = Instant.parse("2026-11-22T10:00:00.123Z");

    static Stream<EventData> everyPayload() {
        JsonNode args = new JsonCodec().mapper().readTree("{\"expression\":\"6*7\"}");
        return Stream.of(
                new EventData.RunStart("thr_a", "run_a", "assistant", 2, new RunInput("hi", List.of("https://x/i.png"), null, null, List.of("ctx")), Map.of("k", "v")),
                new EventData.ThinkingPart("hmm"),
                new EventData.MessageDelta("msg_a", "Hel"),
                new EventData.MessageFinal("msg_a", "Hello", new Usage(3, 4)),
                new EventData.ToolStart("call_a", "calculator", args),
                new EventData.ToolEnd("call_a", "calculator", "42", false, 7),
                new EventData.RunError("model_error", "boom", true),
                new EventData.RunEnd(RunStatus.TIMED_OUT, "partial", Usage.NONE, 1200));
    }

    @ParameterizedTest
    @MethodSource("everyPayload")
    void everyEventSurvivesARoundTrip(EventData data) {
        RunEvent event = new RunEvent(5, "run_a", "thr_a", "demo", "assistant", AT, data);

        RunEvent back = codec.decodeEvent(codec.encode(event));

        assertThat(back).isEqualTo(event);
    }

    @Test
    void theEnvelopeIsSnakeCaseWithTheTypeFirst() {
        RunEvent event = new RunEvent(3, "run_a", "thr_a", "demo", "assistant", AT, new EventData.MessageDelta("msg_a", "Hel"));

        assertThat(codec.encodeToString(event)).isEqualTo(
                "{\"type\":\"message_delta\",\"seq\":3,\"run_id\":\"run_a\",\"thread_id\":\"thr_a\",\"project_id\":\"demo\","
                        + "\"agent_id\":\"assistant\",\"created_at\":\"2026-11-22T10:00:00.123Z\","
                        + "\"data\":{\"message_id\":\"msg_a\",\"delta\":\"Hel\"}}");
    }

    @Test
    void wireNamesOfStatusesAndFlagsAreLowercaseSnakeCase() {
        String runEnd = codec.encodeToString(new RunEvent(9, "run_a", null, "demo", "a", AT,
                new EventData.RunEnd(RunStatus.TIMED_OUT, "", Usage.NONE, 1)));
        String toolEnd = codec.encodeToString(new RunEvent(9, "run_a", null, "demo", "a", AT,
                new EventData.ToolEnd("c", "t", "o", true, 1)));

        assertThat(runEnd).contains("\"status\":\"timed_out\"").doesNotContain("thread_id");
        assertThat(toolEnd).contains("\"is_error\":true").contains("\"duration_ms\":1");
    }

    @Test
    void peekReadsTypeAndSeqWithoutBindingThePayload() {
        String json = "{\"type\":\"run_end\",\"seq\":12,\"data\":{\"anything\":[1,{\"seq\":99}]}}";

        var header = codec.peekHeader(json);

        assertThat(header.type()).isEqualTo("run_end");
        assertThat(header.seq()).isEqualTo(12);
    }

    @Test
    void peekFindsSeqAfterANestedPayload() {
        var header = codec.peekHeader("{\"data\":{\"seq\":99,\"type\":\"x\"},\"type\":\"error\",\"seq\":4}");

        assertThat(header.type()).isEqualTo("error");
        assertThat(header.seq()).isEqualTo(4);
    }

    @ParameterizedTest
    @MethodSource("poison")
    void somethingThatIsNotAnEnvelopeIsACodecException(String json) {
        assertThatThrownBy(() -> codec.decodeEvent(json.getBytes(StandardCharsets.UTF_8))).isInstanceOf(CodecException.class);
    }

    static Stream<String> poison() {
        return Stream.of("not json", "[]", "{}", "{\"type\":\"nope\",\"seq\":0,\"data\":{}}",
                "{\"type\":\"run_start\",\"seq\":-1,\"run_id\":\"r\",\"project_id\":\"p\",\"agent_id\":\"a\",\"created_at\":\"2026-11-22T10:00:00Z\",\"data\":{\"run_id\":\"r\",\"agent_id\":\"a\",\"attempt\":1,\"input\":{\"query\":\"q\"}}}");
    }

    @Test
    void aRunCommandSurvivesARoundTrip() {
        RunCommand command = new RunCommand("run_a", "thr_a", "demo", "assistant", RunMode.STREAM,
                new RunInput("q", List.of("i"), List.of("d"), List.of("a"), List.of("c")), Map.of("n", 1), AT);

        assertThat(codec.decodeCommand(codec.encode(command))).isEqualTo(command);
    }
}
