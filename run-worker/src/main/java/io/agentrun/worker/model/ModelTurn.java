package io.agentrun.worker.model;

import io.agentrun.model.event.Usage;

/** What a finished model turn produced: the complete text and the tokens it cost. */
public record ModelTurn(String text, Usage usage) {
}
