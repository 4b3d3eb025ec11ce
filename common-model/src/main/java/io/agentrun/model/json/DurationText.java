package io.agentrun.model.json;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;

/**
 * Durations as people write them in configuration: {@code 500ms}, {@code 90s}, {@code 2m}, {@code 1h},
 * ISO-8601 ({@code PT2M}), or a number of seconds.
 */
public final class DurationText {

    private static final Pattern SHORT = Pattern.compile("(\\d{1,9})\\s*(ms|s|m|h|d)");

    private DurationText() {
    }

    /** @throws IllegalArgumentException with the accepted forms when {@code text} is none of them */
    public static Duration parse(String text) {
        String value = text.strip().toLowerCase(Locale.ROOT);
        Matcher m = SHORT.matcher(value);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        }
        try {
            return Duration.parse(text.strip().toUpperCase(Locale.ROOT));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("'" + text + "' is not a duration (use e.g. 500ms, 90s, 2m, 1h or PT2M)");
        }
    }

    static final class Deserializer extends ValueDeserializer<Duration> {
        @Override
        public Duration deserialize(JsonParser parser, DeserializationContext context) {
            if (parser.currentToken() == JsonToken.VALUE_NUMBER_INT) {
                return Duration.ofSeconds(parser.getLongValue());
            }
            if (parser.currentToken() == JsonToken.VALUE_NUMBER_FLOAT) {
                return Duration.ofMillis(Math.round(parser.getDoubleValue() * 1000));
            }
            try {
                return parse(parser.getString());
            } catch (IllegalArgumentException e) {
                return (Duration) context.handleWeirdStringValue(Duration.class, parser.getString(), e.getMessage());
            }
        }
    }
}
