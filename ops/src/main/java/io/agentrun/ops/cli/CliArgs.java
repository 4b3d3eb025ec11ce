package io.agentrun.ops.cli;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** {@code --name value} and {@code --flag} options of one command, checked against what it accepts. */
final class CliArgs {

    private final Map<String, String> values = new HashMap<>();
    private final Set<String> flags = new HashSet<>();

    private CliArgs() {
    }

    static CliArgs parse(String[] args, Set<String> valued, Set<String> flagged) {
        CliArgs parsed = new CliArgs();
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (flagged.contains(name)) {
                parsed.flags.add(name);
            } else if (valued.contains(name)) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(name + " needs a value");
                }
                parsed.values.put(name, args[++i]);
            } else {
                throw new IllegalArgumentException("unknown option " + name);
            }
        }
        return parsed;
    }

    @Nullable String value(String name) {
        return values.get(name);
    }

    String value(String name, String fallback) {
        return values.getOrDefault(name, fallback);
    }

    boolean flag(String name) {
        return flags.contains(name);
    }

    /** An ISO-8601 instant ({@code 2026-11-22T10:00:00Z}) or a span back from now ({@code 15m}, {@code 2h}, {@code 3d}). */
    @Nullable Instant time(String name) {
        String text = values.get(name);
        if (text == null) {
            return null;
        }
        try {
            return text.matches("\\d+[smhd]") ? Instant.now().minus(span(text)) : Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(name + " takes an ISO-8601 time (2026-11-22T10:00:00Z) or a span back from now (15m, 2h, 3d), not '" + text + "'");
        }
    }

    private static java.time.Duration span(String text) {
        long n = Long.parseLong(text.substring(0, text.length() - 1));
        return switch (text.charAt(text.length() - 1)) {
            case 's' -> java.time.Duration.ofSeconds(n);
            case 'm' -> java.time.Duration.ofMinutes(n);
            case 'h' -> java.time.Duration.ofHours(n);
            default -> java.time.Duration.ofDays(n);
        };
    }
}
