package io.agentrun.model.admin;

import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** {@code POST /admin/v1/projects}. */
public record NewProject(String id, @Nullable String name) {

    private static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9_-]{0,62}");

    public NewProject {
        if (id == null || !ID.matcher(id).matches()) {
            throw new IllegalArgumentException("id must be 1–63 lowercase letters, digits, '_' or '-', starting with a letter or digit");
        }
        if (name != null && name.length() > 200) {
            throw new IllegalArgumentException("name must be at most 200 characters");
        }
    }

    public static boolean isValidId(String candidate) {
        return ID.matcher(candidate).matches();
    }
}
