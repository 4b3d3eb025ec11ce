package io.agentrun.model.agent;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A configured agent of a project, stored as JSON in {@code ar:agent:{project}:{agent}}.
 *
 * @param provider       the model family; {@code scripted} is the deterministic model for local use and tests
 * @param wordsPerDelta  scripted model: words per {@code message_delta}
 * @param deltaDelayMs   scripted model: pause before each delta
 */
public record AgentDefinition(
        String id,
        String name,
        String provider,
        String model,
        String instructions,
        int wordsPerDelta,
        long deltaDelayMs) {

    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

    public AgentDefinition {
        Objects.requireNonNull(id, "id");
        if (!ID.matcher(id).matches()) {
            throw new IllegalArgumentException("agent id must be 1-64 letters, digits, '_', '.' or '-': " + id);
        }
        name = name == null || name.isBlank() ? id : name;
        provider = provider == null || provider.isBlank() ? "scripted" : provider;
        model = model == null ? "" : model;
        instructions = instructions == null ? "" : instructions;
        if (wordsPerDelta <= 0) {
            wordsPerDelta = 2;
        }
        if (deltaDelayMs < 0) {
            throw new IllegalArgumentException("delta_delay_ms cannot be negative");
        }
    }

    public static boolean isValidId(String candidate) {
        return ID.matcher(candidate).matches();
    }

    public static AgentDefinition scripted(String id) {
        return new AgentDefinition(id, id, "scripted", "", "", 2, 0);
    }
}
