package io.agentrun.model.json;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;

/**
 * An envelope's {@code created_at}, read straight from its text: api nodes time every event they deliver, and a JSON
 * parse per event (or {@link Instant#parse}) was a few percent of a node's CPU. Owned here, beside the codec that
 * writes the envelope.
 */
public final class CreatedAt {

    private static final String FIELD = "\"created_at\":\"";

    private CreatedAt() {
    }

    /** @return {@code created_at} of {@code envelopeJson} in epoch millis, or -1 when it has none that can be read */
    public static long millis(String envelopeJson) {
        int at = envelopeJson.indexOf(FIELD);
        if (at < 0) {
            return -1;
        }
        int from = at + FIELD.length();
        int to = envelopeJson.indexOf('"', from);
        try {
            return to < 0 ? -1 : epochMillis(envelopeJson, from, to);
        } catch (DateTimeException | StringIndexOutOfBoundsException | NumberFormatException e) {
            return -1;
        }
    }

    /**
     * {@code created_at} as the worker writes it, {@code 2026-11-23T20:01:02.123Z} (or without the millis when
     * they are 0), read field by field; any other form goes to {@link Instant#parse}.
     */
    static long epochMillis(String text, int from, int to) {
        int length = to - from;
        boolean withMillis = length == 24 && text.charAt(from + 19) == '.';
        if ((!withMillis && length != 20) || text.charAt(to - 1) != 'Z' || text.charAt(from + 10) != 'T') {
            return Instant.parse(text.substring(from, to)).toEpochMilli();
        }
        long day = LocalDate.of(digits(text, from, 4), digits(text, from + 5, 2), digits(text, from + 8, 2)).toEpochDay();
        long seconds = day * 86_400 + digits(text, from + 11, 2) * 3_600L + digits(text, from + 14, 2) * 60L + digits(text, from + 17, 2);
        return seconds * 1_000 + (withMillis ? digits(text, from + 20, 3) : 0);
    }

    /** The number written in {@code count} digits at {@code from}, also {@link InstantText}'s; anything else throws. */
    static int digits(String text, int from, int count) {
        int value = 0;
        for (int i = from; i < from + count; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                throw new NumberFormatException("not a digit in a timestamp: " + c);
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }
}
