package io.agentrun.model.read;

import io.agentrun.model.thread.ChatMessage;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Messages of a thread's history in order, oldest first: the newest page first, then, with {@code before},
 * the ones before it.
 *
 * @param nextBefore pass as {@code before} for the page of older messages; null at the start of the history
 */
public record MessagePage(List<ChatMessage> messages, @Nullable String nextBefore) {

    public MessagePage {
        messages = List.copyOf(messages);
    }
}
