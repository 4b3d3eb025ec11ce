package io.agentrun.model.agent;

import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The tools of an agent that wait for a person before they run ({@code approvals} of an agent definition).
 *
 * @param tools           names of the agent's tools (built-in or of its MCP servers) a call of which waits for a
 *                        decision; the run emits {@code approval_required} and pauses
 * @param deadline        how long a decision may take; once it passed, the call is denied. Default 24 h, at most 30 days
 * @param publishableKeys whether a publishable key (a browser widget) may decide, besides secret keys and sessions
 */
public record Approvals(List<String> tools, @Nullable Duration deadline, boolean publishableKeys) {

    public static final Duration DEFAULT_DEADLINE = Duration.ofHours(24);
    private static final Duration LONGEST = Duration.ofDays(30);
    /** No tool waits (declared after the durations its constructor reads). */
    public static final Approvals NONE = new Approvals(List.of(), null, false);

    public Approvals {
        tools = tools == null ? List.of() : List.copyOf(tools);
        if (deadline == null) {
            deadline = DEFAULT_DEADLINE;
        }
        if (deadline.compareTo(Duration.ofSeconds(1)) < 0 || deadline.compareTo(LONGEST) > 0) {
            throw new IllegalArgumentException("approvals.deadline must be 1s to 30d");
        }
    }

    public boolean required(String tool) {
        return tools.contains(tool);
    }

    /** Who may decide: the credential kinds {@code approval_required.deciders} names. */
    public List<String> deciders() {
        return publishableKeys ? List.of("secret_key", "session", "publishable_key") : List.of("secret_key", "session");
    }
}
