package io.agentrun.ops.cli;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** An ISO-8601 instant ({@code 2026-11-22T10:00:00Z}) or a span back from now ({@code 15m}, {@code 2h}, {@code 3d}). */
final class PointInTime implements ITypeConverter<Instant> {

    static final String FORMS = "TIME: ISO-8601 (2026-11-22T10:00:00Z) or a span back from now (15m, 2h, 3d)";

    @Override
    public Instant convert(String text) {
        try {
            return text.matches("\\d+[smhd]") ? Instant.now().minus(span(text)) : Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw new TypeConversionException("takes an ISO-8601 time (2026-11-22T10:00:00Z) or a span back from now (15m, 2h, 3d), not '"
                    + text + "'");
        }
    }

    private static Duration span(String text) {
        long n = Long.parseLong(text.substring(0, text.length() - 1));
        return switch (text.charAt(text.length() - 1)) {
            case 's' -> Duration.ofSeconds(n);
            case 'm' -> Duration.ofMinutes(n);
            case 'h' -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
        };
    }
}
