package io.agentrun.worker.model;

import org.jspecify.annotations.Nullable;

/** A piece of reasoning; Anthropic signs it and requires it back unchanged in the next step of a tool loop. */
public record ThinkingBlock(String text, @Nullable String signature) {
}
