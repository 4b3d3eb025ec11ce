package io.agentrun.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class PercentDecodingTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "uploads/p/f/a.png|uploads/p/f/a.png",
        "caf%C3%A9%20menu.pdf|café menu.pdf",
        "a+b|a+b",
        "%E2%98%95|☕",
        "%F0%9F%98%80|😀"})
    void decodesWellFormedUtf8(String encoded, String decoded) {
        assertThat(PercentDecoding.decode(encoded)).isEqualTo(decoded);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "a%C0%AFb",          // overlong '/'
        "%E0%80%AF",         // overlong '/', three bytes
        "%ED%A0%80",         // a lone surrogate
        "%FF",               // never valid in UTF-8
        "%C3",               // truncated sequence
        "%zz", "%4", "abc%", // not two hex digits
        "café"               // a character that was not percent-encoded
    })
    void refusesAnythingElse(String encoded) {
        assertThatThrownBy(() -> PercentDecoding.decode(encoded)).isInstanceOf(PercentDecoding.MalformedException.class);
    }
}
