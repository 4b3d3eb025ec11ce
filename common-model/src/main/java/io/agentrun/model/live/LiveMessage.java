package io.agentrun.model.live;

import org.jspecify.annotations.Nullable;

/**
 * A message on an api node's live channel ({@code ar:node:{node}}): the envelopes of the events the relay applied in
 * one batch, of every run the node watches, one per line, each optionally preceded by its W3C {@code traceparent} line
 * (envelopes are JSON objects, so a line that starts with <code>{</code> is an envelope, any other a traceparent). A
 * run's events keep their order; each envelope names its run. Written by the relay's {@code LiveFanOut} (event-state),
 * one event at a time by {@link #of}, read by {@link #forEach}.
 */
public final class LiveMessage {

    private LiveMessage() {
    }

    /** What {@link #forEach} hands over: one envelope and the traceparent that preceded it. */
    @FunctionalInterface
    public interface EnvelopeConsumer {
        void accept(String envelopeJson, @Nullable String traceparent);
    }

    /** One event's message; {@code traceparent} empty when the event is not traced. */
    public static String of(String traceparent, String envelopeJson) {
        return traceparent.isEmpty() ? envelopeJson : traceparent + "\n" + envelopeJson;
    }

    /** How many envelopes {@code message} holds, without reading them. */
    public static int envelopeCount(String message) {
        int count = message.startsWith("{") ? 1 : 0;
        for (int at = message.indexOf('\n'); at >= 0; at = message.indexOf('\n', at + 1)) {
            if (at + 1 < message.length() && message.charAt(at + 1) == '{') {
                count++;
            }
        }
        return count;
    }

    /** The envelopes of {@code message}, in order, each with its traceparent or {@code null}. */
    public static void forEach(String message, EnvelopeConsumer consumer) {
        String traceparent = null;
        int from = 0;
        while (from < message.length()) {
            int end = message.indexOf('\n', from);
            if (end < 0) {
                end = message.length();
            }
            if (message.charAt(from) == '{') {
                consumer.accept(message.substring(from, end), traceparent);
                traceparent = null;
            } else {
                traceparent = message.substring(from, end);
            }
            from = end + 1;
        }
    }
}
