package io.agentrun.client;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * An event of a stream that is not a run event the SDK yields: the api's notices about the stream itself, sent
 * without an SSE {@code id:} ({@code run_waiting}; {@code error} {@code node_draining} or {@code slow_consumer}; the
 * {@code error} and {@code run_end} of a stream the node lost) — the SDK joins the run again after them — or a
 * numbered event of a type this SDK does not know (then {@code seq} is set).
 *
 * @param type     the SSE {@code event:}
 * @param seq      the event's {@code id:}, or null for the api's notices
 * @param envelope the {@code data:} JSON
 */
public record Notice(String type, @Nullable Long seq, JsonNode envelope) {

    /** {@code data.code} of an {@code error} notice (e.g. {@code node_draining}), or null. */
    public @Nullable String code() {
        JsonNode code = envelope.path("data").get("code");
        return code == null || !code.isString() ? null : code.asString();
    }
}
