package io.agentrun.model.json;

import java.time.Instant;
import java.time.LocalDate;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.ext.javatime.deser.InstantDeserializer;

/**
 * Instants in the ISO-8601 form Jackson writes them ({@link java.time.format.DateTimeFormatter#ISO_INSTANT}), but the
 * common one of our wire types, millisecond precision from 1970 to 9999 ({@code 2026-11-23T20:01:02.123Z}, or without
 * the millis when they are 0), written and read field by field. Every event and command carries one: through
 * {@code DateTimeFormatter} they were 3% of a worker's CPU under load (bench profile, 50 streams). Any other instant is
 * written as {@link Instant#toString()} (the same form), and any other text or token is read by Jackson's own
 * deserializer.
 */
final class InstantText {

    private static final long FIRST = 0;
    private static final long PAST_LAST = LocalDate.of(10_000, 1, 1).toEpochDay() * 86_400;

    private InstantText() {
    }

    static String format(Instant instant) {
        long seconds = instant.getEpochSecond();
        int nanos = instant.getNano();
        if (seconds < FIRST || seconds >= PAST_LAST || nanos % 1_000_000 != 0) {
            return instant.toString();
        }
        LocalDate day = LocalDate.ofEpochDay(Math.floorDiv(seconds, 86_400));
        int secondOfDay = (int) Math.floorMod(seconds, 86_400);
        int millis = nanos / 1_000_000;
        char[] text = new char[millis == 0 ? 20 : 24];
        digits(text, 0, day.getYear(), 4);
        text[4] = '-';
        digits(text, 5, day.getMonthValue(), 2);
        text[7] = '-';
        digits(text, 8, day.getDayOfMonth(), 2);
        text[10] = 'T';
        digits(text, 11, secondOfDay / 3_600, 2);
        text[13] = ':';
        digits(text, 14, secondOfDay / 60 % 60, 2);
        text[16] = ':';
        digits(text, 17, secondOfDay % 60, 2);
        if (millis != 0) {
            text[19] = '.';
            digits(text, 20, millis, 3);
        }
        text[text.length - 1] = 'Z';
        return new String(text);
    }

    private static void digits(char[] into, int at, int value, int count) {
        for (int i = at + count - 1; i >= at; i--) {
            into[i] = (char) ('0' + value % 10);
            value /= 10;
        }
    }

    /** @return the instant of {@code text} when it has the common form, else null */
    static Instant parseCommon(String text) {
        int length = text.length();
        if ((length != 20 && length != 24) || text.charAt(length - 1) != 'Z' || text.charAt(10) != 'T' || text.charAt(4) != '-'
                || text.charAt(7) != '-' || text.charAt(13) != ':' || text.charAt(16) != ':' || (length == 24 && text.charAt(19) != '.')) {
            return null;
        }
        try {
            return Instant.ofEpochMilli(CreatedAt.epochMillis(text, 0, length));
        } catch (RuntimeException e) {
            return null; // not a real date (month 13, a non-digit): Jackson's reader says why
        }
    }

    static final class Serializer extends ValueSerializer<Instant> {
        @Override
        public void serialize(Instant value, JsonGenerator generator, SerializationContext context) {
            generator.writeString(format(value));
        }
    }

    static final class Deserializer extends ValueDeserializer<Instant> {
        @Override
        public Instant deserialize(JsonParser parser, DeserializationContext context) {
            if (parser.currentToken() == JsonToken.VALUE_STRING) {
                Instant common = parseCommon(parser.getString());
                if (common != null) {
                    return common;
                }
            }
            return InstantDeserializer.INSTANT.deserialize(parser, context);
        }
    }
}
