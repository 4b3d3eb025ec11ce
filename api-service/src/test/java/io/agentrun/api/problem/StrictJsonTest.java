package io.agentrun.api.problem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.agentrun.model.json.JsonCodec;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class StrictJsonTest {

    private final StrictJson json = new StrictJson(new JsonCodec());

    /** {"query":"a<bytes>"}: each is refused, naming the offset of the first bad byte (11). */
    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "overlong quote (2 bytes),  C0A2",
        "overlong quote (3 bytes),  E080A2",
        "overlong quote (4 bytes),  F08080A2",
        "overlong slash,            C0AF",
        "lone high surrogate,       EDA080",
        "lone low surrogate,        EDB080",
        "FF,                        FF",
        "FE,                        FE",
        "continuation byte alone,   80",
        "truncated sequence,        E282",
        "above U+10FFFF,            F4908080"})
    void bytesThatAreNotUtf8AreRefused(String name, String hex) {
        byte[] body = body(HexFormat.of().parseHex(hex));

        assertThatThrownBy(() -> json.tree(body))
                .isInstanceOfSatisfying(ApiProblem.class, p -> {
                    assertThat(p.code()).isEqualTo(ErrorCode.INVALID_REQUEST);
                    assertThat(p.detail()).isEqualTo("the body is not valid UTF-8 (byte 11)");
                });
        assertThatThrownBy(() -> json.read(body, Map.class)).isInstanceOf(ApiProblem.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"é", "☕", "😀", "\u07ff", "\uffff"})
    void wellFormedUtf8IsRead(String text) {
        assertThat(json.tree(body(text.getBytes(StandardCharsets.UTF_8))).get("query").asString()).isEqualTo("a" + text);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "{\"query\":\"first\",\"query\":\"second\"}",
        "{\"query\":\"q\",\"metadata\":{\"query\":1,\"query\":2}}",
        "{\"query\":\"q\",\"metadata\":{\"list\":[{\"query\":1,\"query\":2}]}}"})
    void aKeyRepeatedInAnyObjectIsRefusedAndNamed(String body) {
        assertThatThrownBy(() -> json.tree(body.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOfSatisfying(ApiProblem.class, p -> {
                    assertThat(p.code()).isEqualTo(ErrorCode.INVALID_REQUEST);
                    assertThat(p.detail()).isEqualTo("the key 'query' appears more than once in an object");
                });
    }

    @Test
    void typedReadsAlsoRefuseRepeatedAndUnknownKeys() {
        assertThatThrownBy(() -> json.read("{\"a\":1,\"a\":2}".getBytes(StandardCharsets.UTF_8), Map.class))
                .hasMessage("the key 'a' appears more than once in an object");
        assertThat(json.read("{\"a\":1,\"b\":2}".getBytes(StandardCharsets.UTF_8), Map.class)).containsOnlyKeys("a", "b");
    }

    @Test
    void utf16IsNotJsonHere() {
        byte[] utf16 = "{\"query\":\"q\"}".getBytes(StandardCharsets.UTF_16LE);

        assertThatThrownBy(() -> json.tree(utf16)).isInstanceOf(ApiProblem.class).hasMessageStartingWith("the body is not valid JSON");
    }

    private static byte[] body(byte[] inside) {
        byte[] start = "{\"query\":\"a".getBytes(StandardCharsets.US_ASCII);
        byte[] end = "\"}".getBytes(StandardCharsets.US_ASCII);
        byte[] body = new byte[start.length + inside.length + end.length];
        System.arraycopy(start, 0, body, 0, start.length);
        System.arraycopy(inside, 0, body, start.length, inside.length);
        System.arraycopy(end, 0, body, start.length + inside.length, end.length);
        return body;
    }
}
