package io.agentrun.replay;

import io.agentrun.model.event.EventData;
import io.agentrun.model.event.RunEvent;
import java.util.Locale;

/**
 * How replayed events are printed. {@code sse} is byte for byte what an api node writes to a client
 * ({@code id}, {@code event}, {@code data}, blank line), so a replay can be diffed against a client's
 * capture; {@code jsonl} is the envelope as stored, one per line; {@code pretty} is for reading.
 */
public enum ReplayFormat {
    JSONL, SSE, PRETTY,
    /** A JSON line per record: where it is in the topic, then the event ({@code {"partition":…,"offset":…,"event":{…}}}). */
    RECORDS;

    public static ReplayFormat parse(String name) {
        try {
            return valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown format '" + name + "' (jsonl, records, sse or pretty)");
        }
    }

    public String render(ReplayedEvent replayed) {
        RunEvent event = replayed.event();
        return switch (this) {
            case JSONL -> replayed.json() + "\n";
            case RECORDS -> "{\"partition\":" + replayed.partition() + ",\"offset\":" + replayed.offset() + ",\"event\":" + replayed.json() + "}\n";
            case SSE -> "id: " + event.seq() + "\nevent: " + event.type().wireName() + "\ndata: " + replayed.json() + "\n\n";
            case PRETTY -> String.format(Locale.ROOT, "%s  %s  %-4s %-14s %s%n", event.createdAt(), event.runId(),
                    "#" + event.seq(), event.type().wireName(), summary(event.data()));
        };
    }

    /** The part of an event a person scans for; never the whole input (it may be long). */
    static String summary(EventData data) {
        return switch (data) {
            case EventData.RunStart start -> "attempt " + start.attempt() + ", agent " + start.agentId() + ": " + clip(start.input().query());
            case EventData.ThinkingPart thinking -> clip(thinking.text());
            case EventData.MessageDelta delta -> quoted(delta.delta());
            case EventData.MessageFinal done -> clip(done.content()) + (done.wasCancelled() ? " (cancelled)" : "");
            case EventData.ToolStart tool -> tool.name() + " " + clip(String.valueOf(tool.arguments()));
            case EventData.ToolEnd tool -> tool.name() + (tool.isError() ? " ERROR " : " → ") + clip(tool.output()) + " (" + tool.durationMs() + " ms)";
            case EventData.ApprovalRequired approval -> "waits for a decision on " + approval.name() + " "
                    + clip(String.valueOf(approval.arguments())) + " (call " + approval.toolCallId() + ", until " + approval.deadline() + ")";
            case EventData.ApprovalDecided decided -> decided.decision() + " " + decided.name() + " by " + decided.decidedBy()
                    + (decided.reason().isBlank() ? "" : ": " + clip(decided.reason()));
            case EventData.RunError error -> error.code() + (error.retryable() ? " (retryable) " : " ") + clip(error.message());
            case EventData.RunEnd end -> end.status().wireName() + " in " + end.durationMs() + " ms: " + clip(end.output());
        };
    }

    private static String quoted(String text) {
        return "\"" + text.replace("\n", "\\n") + "\"";
    }

    private static String clip(String text) {
        String line = text.replace("\n", " ");
        return line.length() <= 120 ? line : line.substring(0, 117) + "...";
    }
}
