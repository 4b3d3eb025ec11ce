package io.agentrun.client;

import org.jspecify.annotations.Nullable;

/**
 * One dispatched server-sent event.
 *
 * @param id          the {@code id:} field of this event's own lines, or null when it had none — unlike the WHATWG
 *                    "last event ID" (which {@code lastEventId} is), so a notice without {@code id:} is told apart
 *                    from a numbered run event
 * @param event       the {@code event:} field, {@code message} when absent
 * @param data        the {@code data:} lines joined by LF
 * @param lastEventId the stream's last event ID buffer after this event (WHATWG), "" when none was ever set
 */
public record SseMessage(@Nullable String id, String event, String data, String lastEventId) {
}
