package io.agentrun.client;

import java.net.http.HttpHeaders;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Turns an error answer into an {@link AgentrunException}: an RFC 9457 problem document gives code, title and detail;
 * anything else (a proxy's HTML page) only its status, never its bytes. Text that carries the caller's secret is
 * redacted, whatever sent it.
 */
final class Problems {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private Problems() {
    }

    static AgentrunException from(int status, HttpHeaders headers, byte[] body, String secret) {
        JsonNode problem = parse(headers, body);
        String code = text(problem, "code");
        String title = text(problem, "title");
        return new AgentrunException(
                code == null ? "http_" + status : redact(code, secret),
                status,
                title == null ? "HTTP " + status : redact(title, secret),
                redact(text(problem, "detail"), secret),
                retryAfter(headers.firstValue("Retry-After").orElse(null)),
                headers.firstValue("x-run-id").orElse(null),
                null);
    }

    /** {@code Retry-After} as delay-seconds or an HTTP-date (RFC 9110 §10.2.3); null when absent or unreadable. */
    static @Nullable Duration retryAfter(@Nullable String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        String v = value.strip();
        if (v.chars().allMatch(Character::isDigit) && v.length() < 10) {
            return Duration.ofSeconds(Long.parseLong(v));
        }
        try {
            Duration until = Duration.between(ZonedDateTime.now(), ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME));
            return until.isNegative() ? Duration.ZERO : until;
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static @Nullable JsonNode parse(HttpHeaders headers, byte[] body) {
        String type = headers.firstValue("content-type").orElse("");
        if (!type.contains("json") || body.length == 0) {
            return null;
        }
        try {
            JsonNode node = JSON.readTree(body);
            return node.isObject() ? node : null;
        } catch (JacksonException e) {
            return null; // not a problem document: the status alone says what happened
        }
    }

    private static @Nullable String text(@Nullable JsonNode problem, String field) {
        JsonNode value = problem == null ? null : problem.get(field);
        return value == null || !value.isString() ? null : value.asString();
    }

    private static @Nullable String redact(@Nullable String text, String secret) {
        return text == null || secret.isEmpty() ? text : text.replace(secret, "[redacted]");
    }
}
