package io.agentrun.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ProblemsTest {

    private static final String KEY = "ar_sk_test_0123456789abcdefghijABCDEFGHIJ0123456789";

    private static HttpHeaders headers(Map<String, String> values) {
        return HttpHeaders.of(values.entrySet().stream().collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, e -> List.of(e.getValue()))),
                (a, b) -> true);
    }

    private static AgentrunException problem(int status, String code, Map<String, String> extra) {
        String json = "{\"type\":\"urn:agentrun:problem:" + code + "\",\"title\":\"Title of " + code + "\",\"status\":" + status
                + ",\"detail\":\"detail of " + code + "\",\"code\":\"" + code + "\"}";
        Map<String, String> h = new java.util.HashMap<>(extra);
        h.put("content-type", "application/problem+json");
        return Problems.from(status, headers(h), json.getBytes(StandardCharsets.UTF_8), KEY);
    }

    @ParameterizedTest(name = "{0} {1}: retryable {2}")
    @CsvSource({
            "400, invalid_request, false",
            "400, invalid_response_format, false",
            "401, unauthorized, false",
            "403, forbidden, false",
            "404, agent_not_found, false",
            "404, thread_not_found, false",
            "404, run_not_found, false",
            "404, file_not_found, false",
            "405, method_not_allowed, false",
            "406, not_acceptable, false",
            "409, thread_busy, false",
            "409, idempotency_key_in_use, true",
            "413, payload_too_large, false",
            "415, unsupported_media_type, false",
            "422, idempotency_key_reused, false",
            "429, rate_limited, false",
            "502, run_failed, false",
            "503, upstream_unavailable, true",
            "504, run_timeout, false",
    })
    void everyCodeOfTheErrorTableIsTyped(int status, String code, boolean retryable) {
        AgentrunException e = problem(status, code, Map.of());

        assertThat(e.status()).isEqualTo(status);
        assertThat(e.code()).isEqualTo(code);
        assertThat(e.title()).isEqualTo("Title of " + code);
        assertThat(e.detail()).contains("detail of " + code);
        assertThat(e.isRetryable()).isEqualTo(retryable);
        assertThat(e.getMessage()).startsWith(status + " " + code + ": Title of " + code);
    }

    @Test
    void retryAfterInSecondsMakesA429Retryable() {
        AgentrunException e = problem(429, "rate_limited", Map.of("Retry-After", "3"));

        assertThat(e.retryAfter()).contains(Duration.ofSeconds(3));
        assertThat(e.isRetryable()).isTrue();
    }

    @Test
    void retryAfterAsAnHttpDateIsReadToo() {
        String date = java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME.format(java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC).plusSeconds(60));

        assertThat(Problems.retryAfter(date)).isBetween(Duration.ofSeconds(55), Duration.ofSeconds(61));
        assertThat(Problems.retryAfter("soon")).isNull();
    }

    @Test
    void theRunIdOfA503IsKept() {
        assertThat(problem(503, "upstream_unavailable", Map.of("x-run-id", "run_abc")).runId()).contains("run_abc");
    }

    @Test
    void anAnswerThatIsNoProblemDocumentGivesItsStatusOnly() {
        AgentrunException e = Problems.from(502, headers(Map.of("content-type", "text/html")),
                ("<html>bad gateway " + KEY + "</html>").getBytes(StandardCharsets.UTF_8), KEY);

        assertThat(e.code()).isEqualTo("http_502");
        assertThat(e.title()).isEqualTo("HTTP 502");
        assertThat(e.detail()).isEmpty();
        assertThat(e.toString()).doesNotContain(KEY).doesNotContain("html");
    }

    @Test
    void aSecretEchoedInAProblemIsRedacted() {
        String json = "{\"title\":\"bad key " + KEY + "\",\"status\":401,\"detail\":\"the key " + KEY + " is unknown\",\"code\":\"unauthorized\"}";
        AgentrunException e = Problems.from(401, headers(Map.of("content-type", "application/problem+json")),
                json.getBytes(StandardCharsets.UTF_8), KEY);

        assertThat(e.getMessage()).doesNotContain(KEY).contains("[redacted]");
        assertThat(e.toString()).doesNotContain(KEY);
        assertThat(e.title() + e.detail().orElseThrow()).doesNotContain(KEY);
    }
}
