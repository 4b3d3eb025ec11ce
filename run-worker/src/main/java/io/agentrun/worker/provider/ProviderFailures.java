package io.agentrun.worker.provider;

import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A provider's failure as a {@link ModelException} typed by what the run loop can do, whichever client met it: one
 * table of HTTP statuses for every provider, and the scrubbing of keys from any text that reaches clients and logs.
 */
public final class ProviderFailures {

    private static final Pattern KEY_LIKE = Pattern.compile("(sk-(ant-)?[A-Za-z0-9_\\-]{6,}|AIza[A-Za-z0-9_\\-]{10,}|Bearer\\s+\\S+)");
    private static final int DETAIL_LIMIT = 300;
    private static final JsonMapper MAPPER = JsonMapper.builder().build();

    private ProviderFailures() {
    }

    /**
     * @param detail     the provider's own words (its error message), scrubbed here
     * @param retryAfter the {@code Retry-After} header, if any
     * @param secret     the request's key
     */
    public static ModelException status(String provider, int status, String detail, @Nullable String retryAfter,
            @Nullable String secret) {
        String said = redact(detail.length() > DETAIL_LIMIT ? detail.substring(0, DETAIL_LIMIT) + "…" : detail.strip(), secret);
        String message = provider + " answered " + status + (said.isEmpty() ? "" : ": " + said);
        return switch (status) {
            case 429 -> new ModelException("rate_limited", message, true, retryAfter(retryAfter));
            case 408, 409, 500, 502, 503, 504, 529 -> new ModelException("provider_unavailable", message, true, retryAfter(retryAfter));
            case 400, 422 -> new ModelException("provider_rejected_request", message, false);
            case 401, 403 -> new ModelException("provider_auth_failed", message, false);
            case 404 -> new ModelException("provider_not_found", message, false);
            default -> new ModelException(status >= 500 ? "provider_unavailable" : "provider_error", message, status >= 500);
        };
    }

    /**
     * The provider's words in an SDK's exception message, {@code "{status}: {detail}"} where the detail is the error's
     * message (OpenAI's SDK) or the whole body as JSON (Anthropic's): the body's {@code error.message} when it has one.
     */
    public static String sdkDetail(@Nullable String message) {
        String detail = message == null ? "" : message.replaceFirst("^\\d{3}: ", "");
        try {
            JsonNode said = MAPPER.readTree(detail).path("error");
            return said.path("message").isString() ? said.path("message").asString() : said.isString() ? said.asString() : detail;
        } catch (JacksonException notJson) {
            return detail;
        }
    }

    /** The connection failed or timed out before or while the answer streamed: another try may work. */
    public static ModelException connection(String provider, Throwable cause) {
        for (Throwable each = cause; each != null; each = each.getCause()) {
            if (each instanceof java.net.SocketTimeoutException || each instanceof java.net.http.HttpTimeoutException
                    || each instanceof java.util.concurrent.TimeoutException) {
                return new ModelException("provider_timeout", provider + " did not answer in time", true);
            }
        }
        return new ModelException("connection_error", provider + " could not be reached or broke off: "
                + cause.getClass().getSimpleName(), true);
    }

    /** A chunk that is not what the provider's format promises. */
    public static ModelException malformed(String provider, String detail) {
        return new ModelException("invalid_response", provider + " sent a malformed stream chunk: " + redact(detail, null), false);
    }

    /** Scrubs the request's key and anything shaped like a key. */
    public static String redact(String text, @Nullable String secret) {
        String clean = secret == null || secret.isEmpty() ? text : text.replace(secret, "[redacted]");
        return KEY_LIKE.matcher(clean).replaceAll("[redacted]");
    }

    /** {@code Retry-After} in seconds or as an HTTP date; null when absent or unreadable. */
    static @Nullable Duration retryAfter(@Nullable String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return Duration.ofMillis(Math.round(Double.parseDouble(value.strip()) * 1000));
        } catch (NumberFormatException notSeconds) {
            try {
                Duration until = Duration.between(ZonedDateTime.now(), ZonedDateTime.parse(value.strip(), DateTimeFormatter.RFC_1123_DATE_TIME));
                return until.isNegative() ? Duration.ZERO : until;
            } catch (DateTimeParseException neither) {
                return null;
            }
        }
    }
}
