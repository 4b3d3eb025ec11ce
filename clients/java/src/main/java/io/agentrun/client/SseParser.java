package io.agentrun.client;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Reads server-sent events from bytes as the WHATWG HTML standard (§9.2.6) says: UTF-8 with a leading BOM dropped,
 * lines ended by CRLF, LF or CR, {@code :} comments, {@code data:} lines joined by LF, one space after the colon
 * dropped, a field without a colon taken as empty, an event without data not dispatched, an unfinished event at the
 * end of the stream discarded. Not thread-safe: one reader per connection. {@link RunStream} reads agentrun's streams
 * with it; it is public for tools that read a stream's raw events (our bench and end-to-end tests do). It reads ahead
 * into its own buffer: keep one parser per stream.
 */
public final class SseParser {

    private final InputStream in;
    private final byte[] buffer = new byte[8192];
    private int position;
    private int limit;
    private byte[] line = new byte[256];
    private int lineLength;
    /** A line ended with CR: an LF right after it belongs to that line end (CRLF), without waiting for it. */
    private boolean skipLf;
    private boolean firstLine = true;

    private final StringBuilder data = new StringBuilder();
    private boolean hasData;
    private @Nullable String eventType;
    private @Nullable String ownId;
    private String lastEventId = "";
    private long retryMillis = -1;

    public SseParser(InputStream in) {
        this.in = in;
    }

    /** The next event, or null at the end of the stream. */
    public @Nullable SseMessage next() throws IOException {
        for (String l; (l = readLine()) != null; ) {
            if (l.isEmpty()) {
                SseMessage message = dispatch();
                if (message != null) {
                    return message;
                }
            } else {
                field(l);
            }
        }
        return null;
    }

    /** The last {@code retry:} value in milliseconds, or -1 when the server sent none. */
    public long retryMillis() {
        return retryMillis;
    }

    private @Nullable SseMessage dispatch() {
        SseMessage message = hasData
                ? new SseMessage(ownId, eventType == null ? "message" : eventType, data.toString(), lastEventId)
                : null;
        data.setLength(0);
        hasData = false;
        eventType = null;
        ownId = null;
        return message;
    }

    private void field(String l) {
        if (l.charAt(0) == ':') {
            return; // a comment, e.g. the api's ": keepalive"
        }
        int colon = l.indexOf(':');
        String name = colon < 0 ? l : l.substring(0, colon);
        String value = colon < 0 ? "" : l.substring(colon + 1 + (colon + 1 < l.length() && l.charAt(colon + 1) == ' ' ? 1 : 0));
        switch (name) {
            case "data" -> {
                if (hasData) {
                    data.append('\n');
                }
                data.append(value);
                hasData = true;
            }
            case "event" -> eventType = value;
            case "id" -> {
                if (value.indexOf('\0') < 0) {
                    ownId = value;
                    lastEventId = value;
                }
            }
            case "retry" -> {
                if (!value.isEmpty() && value.chars().allMatch(c -> c >= '0' && c <= '9') && value.length() < 19) {
                    retryMillis = Long.parseLong(value);
                }
            }
            default -> {
                // unknown fields are ignored
            }
        }
    }

    /** The next line without its end, or null at the end of the stream (a last line without an end is dropped). */
    private @Nullable String readLine() throws IOException {
        lineLength = 0;
        while (true) {
            int b = read();
            if (b == -1) {
                return null;
            }
            if (skipLf) {
                skipLf = false;
                if (b == '\n') {
                    continue;
                }
            }
            if (b == '\n' || b == '\r') {
                skipLf = b == '\r';
                return decodeLine();
            }
            append((byte) b);
        }
    }

    private String decodeLine() {
        String l = new String(line, 0, lineLength, StandardCharsets.UTF_8);
        if (firstLine) {
            firstLine = false;
            if (!l.isEmpty() && l.charAt(0) == '\uFEFF') {
                return l.substring(1);
            }
        }
        return l;
    }

    private void append(byte b) {
        if (lineLength == line.length) {
            line = Arrays.copyOf(line, line.length * 2);
        }
        line[lineLength++] = b;
    }

    private int read() throws IOException {
        if (position == limit) {
            int n = in.read(buffer);
            if (n <= 0) {
                return -1;
            }
            position = 0;
            limit = n;
        }
        return buffer[position++] & 0xff;
    }
}
