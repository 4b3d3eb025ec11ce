package io.agentrun.platform.web;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AcceptedCharsetsTest {

    @ParameterizedTest(name = "''{0}'' -> {1}")
    @CsvSource(delimiter = '|', nullValues = "NULL", value = {
        "NULL|false",
        "*/*|false",
        "application/json|false",
        "application/json; charset=utf-8|false",
        "application/json; charset=\"UTF-8\"|false",
        "application/json; charset=utf-16|true",
        "text/plain, application/json; charset=iso-8859-1|true",
        "not a media type|false"})
    void onlyAnotherCharsetThanUtf8Counts(String accept, boolean another) {
        assertThat(AcceptedCharsets.asksForAnotherCharset(accept)).isEqualTo(another);
    }
}
