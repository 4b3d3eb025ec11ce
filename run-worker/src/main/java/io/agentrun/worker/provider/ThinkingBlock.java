package io.agentrun.worker.provider;

import org.jspecify.annotations.Nullable;

/**
 * A piece of reasoning. Anthropic signs it ({@code signature}), or hands it out encrypted
 * ({@code redactedData}, with no text), and requires either back unchanged in the next step of a tool loop.
 */
public record ThinkingBlock(String text, @Nullable String signature, @Nullable String redactedData) {

    public ThinkingBlock(String text, @Nullable String signature) {
        this(text, signature, null);
    }

    public static ThinkingBlock redacted(String data) {
        return new ThinkingBlock("", null, data);
    }
}
