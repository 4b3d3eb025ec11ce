package io.agentrun.worker.provider;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every provider's failures through one table: what the run loop may retry, and what never reaches a client. */
class ProviderFailuresTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            "429, rate_limited, true",
            "408, provider_unavailable, true",
            "500, provider_unavailable, true",
            "503, provider_unavailable, true",
            "529, provider_unavailable, true",
            "507, provider_unavailable, true",
            "400, provider_rejected_request, false",
            "422, provider_rejected_request, false",
            "401, provider_auth_failed, false",
            "403, provider_auth_failed, false",
            "404, provider_not_found, false",
            "418, provider_error, false"})
    void aStatusIsTypedByWhatTheRunLoopCanDo(int status, String code, boolean retryable) {
        ModelException failure = ProviderFailures.status("gemini", status, "said", null, null);

        assertThat(failure.code()).isEqualTo(code);
        assertThat(failure.retryable()).isEqualTo(retryable);
        assertThat(failure.getMessage()).isEqualTo("gemini answered " + status + ": said");
    }

    @Test
    void retryAfterIsReadInSecondsOrAsADateAndIgnoredWhenUnreadable() {
        assertThat(ProviderFailures.status("openai", 429, "", "1.5", null).retryAfter()).isEqualTo(Duration.ofMillis(1500));
        assertThat(ProviderFailures.status("openai", 503, "", "Thu, 01 Jan 1970 00:00:00 GMT", null).retryAfter()).isEqualTo(Duration.ZERO);
        assertThat(ProviderFailures.status("openai", 429, "", "soon", null).retryAfter()).isNull();
        assertThat(ProviderFailures.status("openai", 400, "", "5", null).retryAfter()).as("not retryable: no pause").isNull();
    }

    @Test
    void theKeyAndAnythingKeyShapedAreScrubbed() {
        String said = "bad key my-own-secret-value, also sk-ant-api03-abcdefgh, AIzaSyA1234567890abcdef and Bearer xyz";

        String message = ProviderFailures.status("anthropic", 401, said, null, "my-own-secret-value").getMessage();

        assertThat(message).doesNotContain("my-own-secret-value").doesNotContain("sk-ant-api03").doesNotContain("AIzaSy")
                .doesNotContain("xyz").contains("[redacted]");
    }

    @Test
    void anSdksMessageGivesTheProvidersOwnWords() {
        assertThat(ProviderFailures.sdkDetail("500: internal")).isEqualTo("internal");
        assertThat(ProviderFailures.sdkDetail("529: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"))
                .isEqualTo("Overloaded");
        assertThat(ProviderFailures.sdkDetail("404: {\"error\":\"model 'x' not found\"}")).isEqualTo("model 'x' not found");
        assertThat(ProviderFailures.sdkDetail(null)).isEmpty();
    }

    @Test
    void aLongDetailIsCut() {
        assertThat(ProviderFailures.status("ollama", 500, "x".repeat(1000), null, null).getMessage()).hasSizeLessThan(340).endsWith("…");
    }
}
