package io.agentrun.model.agent;

import java.util.regex.Pattern;

/**
 * A named text document of a project ({@code ar:context:{project}:{id}}), which runs list in
 * {@code contexts} to give the agent background: inlined into its instructions up to the agent's budget,
 * searchable with {@code context_search} beyond it.
 */
public record ContextDocument(String id, String name, String text) {

    public static final int MAX_TEXT_CHARS = 2_000_000;
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

    public ContextDocument {
        if (id == null || !ID.matcher(id).matches()) {
            throw new IllegalArgumentException("context id must be 1–64 letters, digits, '_', '.' or '-' (got '" + id + "')");
        }
        name = name == null || name.isBlank() ? id : name;
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("context " + id + " has no text");
        }
        if (text.length() > MAX_TEXT_CHARS) {
            throw new IllegalArgumentException("context " + id + " is longer than " + MAX_TEXT_CHARS + " characters");
        }
    }

    public static boolean isValidId(String candidate) {
        return ID.matcher(candidate).matches();
    }
}
