package io.agentrun.model.event;

/** Token counts of a model call or a whole run. */
public record Usage(long inputTokens, long outputTokens) {

    public static final Usage NONE = new Usage(0, 0);

    public Usage {
        if (inputTokens < 0 || outputTokens < 0) {
            throw new IllegalArgumentException("token counts cannot be negative");
        }
    }

    public Usage plus(Usage other) {
        return new Usage(inputTokens + other.inputTokens, outputTokens + other.outputTokens);
    }
}
