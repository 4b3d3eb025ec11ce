package io.agentrun.model.admin;

/**
 * What a publishable key may spend per UTC day; reaching either stops new runs until the next day.
 *
 * @param runs   runs started
 * @param tokens model tokens (input + output) of finished runs
 */
public record SpendCap(long runs, long tokens) {

    public static final SpendCap DEFAULT = new SpendCap(1_000, 2_000_000);

    public SpendCap {
        if (runs < 1 || tokens < 1) {
            throw new IllegalArgumentException("daily_spend_cap.runs and daily_spend_cap.tokens must be at least 1");
        }
    }
}
