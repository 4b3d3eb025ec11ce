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
 * Instants in the ISO-8601 form Jackson writes them ({@link java.time.format.DateTimeFormatter#ISO_INSTANT}: UTC, the
 * fraction in groups of three digits, none when it is 0), from 1970 to 9999 ({@code 2026-11-23T20:01:02.123Z},
 * {@code …02.123456Z}, {@code …02Z}), written and read field by field. Every event and command carries one: through
 * {@code DateTimeFormatter} they were 3% of a worker's CPU under load (bench profile, 50 streams), and a command's
 * {@code created_at} (the api's clock, to the microsecond) was a fifth of the worker's share-dispatch thread until
 * the microsecond and nanosecond forms were read here too (2026-11-29). Any other instant is written as
 * {@link Instant#toString()} (the same form), and any other text or token is read by Jackson's own deserializer.
 */
final class InstantText {

    private static final long FIRST = 0;
    private static final long PAST_LAST = LocalDate.of(10_000, 1, 1).toEpochDay() * 86_400;
    /** The length of the form without a fraction ({@code 2026-11-23T20:01:02Z}). */
    private static final int WHOLE_SECONDS = 20;
    /** Where a fraction's first digit is (after the {@code .} at 19). */
    private static final int FRACTION = 20;
    private static final int[] POWERS = {1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000};

    private InstantText() {
    }

    static String format(Instant instant) {
        long seconds = instant.getEpochSecond();
        int nanos = instant.getNano();
        if (seconds < FIRST || seconds >= PAST_LAST) {
            return instant.toString();
        }
        int fractionDigits = nanos == 0 ? 0 : nanos % 1_000_000 == 0 ? 3 : nanos % 1_000 == 0 ? 6 : 9;
        LocalDate day = LocalDate.ofEpochDay(Math.floorDiv(seconds, 86_400));
        int secondOfDay = (int) Math.floorMod(seconds, 86_400);
        char[] text = new char[WHOLE_SECONDS + (fractionDigits == 0 ? 0 : fractionDigits + 1)];
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
        if (fractionDigits != 0) {
            text[19] = '.';
            digits(text, FRACTION, nanos / POWERS[9 - fractionDigits], fractionDigits);
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

    /** @return the instant of {@code text} when it has one of the forms {@link #format} writes, else null */
    static Instant parseCommon(String text) {
        int length = text.length();
        int fractionDigits = length == WHOLE_SECONDS ? 0 : length - WHOLE_SECONDS - 1;
        if ((fractionDigits != 0 && fractionDigits != 3 && fractionDigits != 6 && fractionDigits != 9)
                || text.charAt(length - 1) != 'Z' || text.charAt(10) != 'T' || text.charAt(4) != '-' || text.charAt(7) != '-'
                || text.charAt(13) != ':' || text.charAt(16) != ':' || (fractionDigits != 0 && text.charAt(19) != '.')) {
            return null;
        }
        try {
            int hour = CreatedAt.digits(text, 11, 2);
            int minute = CreatedAt.digits(text, 14, 2);
            int second = CreatedAt.digits(text, 17, 2);
            if (hour > 23 || minute > 59 || second > 59) {
                return null; // Jackson's reader says why
            }
            long day = LocalDate.of(CreatedAt.digits(text, 0, 4), CreatedAt.digits(text, 5, 2), CreatedAt.digits(text, 8, 2))
                    .toEpochDay();
            int nanos = fractionDigits == 0 ? 0 : CreatedAt.digits(text, FRACTION, fractionDigits) * POWERS[9 - fractionDigits];
            return Instant.ofEpochSecond(day * 86_400 + hour * 3_600L + minute * 60L + second, nanos);
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
