package io.agentrun.api.sse;

import io.agentrun.api.live.Frame;
import io.agentrun.model.event.EventType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes server-sent events to one response and flushes each, so the client sees it at once:
 * {@code id: {seq}}, {@code event: {type}}, {@code data: {envelope}}. An {@link IOException} means the
 * client went away. The api's one SSE writer: the project's streams and the operators' record streams
 * ({@code admin/RecordStream}) both write through it.
 */
public final class SseWriter {

    private static final byte[] KEEPALIVE = ": keepalive\n\n".getBytes(StandardCharsets.US_ASCII);

    private static final String APPROVAL_REQUIRED = EventType.APPROVAL_REQUIRED.wireName();
    private static final JsonMapper TREES = JsonMapper.builder().build();

    private final OutputStream out;

    private SseWriter(OutputStream out) {
        this.out = out;
    }

    /** Sends the status line and SSE headers (plus the caller's headers, set before) and commits the response. */
    public static SseWriter open(HttpServletResponse response) throws IOException {
        response.setStatus(HttpServletResponse.SC_OK);
        response.setContentType("text/event-stream");
        response.setCharacterEncoding("UTF-8");
        response.setHeader("Cache-Control", "no-cache");
        response.setHeader("X-Accel-Buffering", "no");
        response.flushBuffer();
        return new SseWriter(response.getOutputStream());
    }

    /** A writer over {@code out} whose headers were sent otherwise (or need none: a test's buffer). */
    public static SseWriter over(OutputStream out) {
        return new SseWriter(out);
    }

    /**
     * @param flush false when another event follows at once (the events of one live message): they leave in one
     *              write to the socket instead of one each
     */
    public void event(Frame frame, boolean flush) throws IOException {
        String json = APPROVAL_REQUIRED.equals(frame.type()) ? withoutCheckpoint(frame.json()) : frame.json();
        write(frame.seq(), frame.type(), json, flush);
    }

    /** An event as given, flushed: {@code data} one line, written whole (no checkpoint taken out). */
    public void event(long id, String type, String data) throws IOException {
        write(id, type, data, true);
    }

    private void write(long id, String type, String data, boolean flush) throws IOException {
        out.write(("id: " + id + "\nevent: " + type + "\ndata: " + data + "\n\n").getBytes(StandardCharsets.UTF_8));
        if (flush) {
            out.flush();
        }
    }

    /**
     * An event that is not part of the run's numbered sequence (no {@code id:}), for failures of the
     * stream itself, so a client's Last-Event-ID still points at the last real event.
     */
    public void unnumbered(String type, String json) throws IOException {
        out.write(("event: " + type + "\ndata: " + json + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /**
     * An approval_required as clients get it: without the checkpoint the run resumes from (the run's conversation, for
     * agentrun's workers; it stays in the event topic). The one event a stream rewrites, and a rare one.
     */
    static String withoutCheckpoint(String envelope) {
        JsonNode tree = TREES.readTree(envelope);
        if (tree.get("data") instanceof ObjectNode data && data.has("checkpoint")) {
            data.remove("checkpoint");
            return TREES.writeValueAsString(tree);
        }
        return envelope;
    }

    public void keepalive() throws IOException {
        out.write(KEEPALIVE);
        out.flush();
    }

    /** A comment line, which readers skip: e.g. a first one, so a reader has the answer before its first event. */
    public void comment(String text) throws IOException {
        out.write((": " + text + "\n\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }
}
