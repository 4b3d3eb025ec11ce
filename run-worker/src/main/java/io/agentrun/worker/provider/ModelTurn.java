package io.agentrun.worker.provider;

import io.agentrun.model.event.Usage;
import java.util.List;

/**
 * A finished model step: its whole text, the tool calls it asks for (empty: the answer is final), the
 * reasoning to hand back, the tokens it cost, and the provider's finish reason.
 */
public record ModelTurn(String text, List<ToolCall> toolCalls, List<ThinkingBlock> thinking, Usage usage, String finishReason) {

    public ModelTurn {
        toolCalls = List.copyOf(toolCalls);
        thinking = List.copyOf(thinking);
    }

    public static ModelTurn text(String text, Usage usage) {
        return new ModelTurn(text, List.of(), List.of(), usage, "stop");
    }
}
