package io.agentrun.api.caller;

import io.agentrun.model.admin.SpendCap;
import org.jspecify.annotations.Nullable;

/**
 * The authenticated caller of a request and the project it acts in. Declare it as a controller method's
 * first parameter and the request is authenticated before anything else is looked at.
 *
 * @param label     the key's label or the session's subject, for logs
 * @param keyFamily for publishable keys: the rotation chain its threads, runs and spend belong to
 * @param spendCap  for publishable keys: the daily cap to charge runs against
 */
public record Caller(String projectId, Kind kind, String label, @Nullable String keyFamily, @Nullable SpendCap spendCap) {

    public enum Kind {
        SECRET_KEY,
        PUBLISHABLE_KEY,
        SESSION
    }

    /** A server-side caller with full access to its project (tests and internal use). */
    public static Caller secret(String projectId, String label) {
        return new Caller(projectId, Kind.SECRET_KEY, label, null, null);
    }

    /** A publishable key only sees threads and runs its own key family started. */
    public boolean limitedToOwnThreads() {
        return kind == Kind.PUBLISHABLE_KEY;
    }

    /** Whether this caller may see a thread started by {@code threadKeyFamily} ({@code null}: not by a publishable key). */
    public boolean maySee(@Nullable String threadKeyFamily) {
        return !limitedToOwnThreads() || (keyFamily != null && keyFamily.equals(threadKeyFamily));
    }
}
