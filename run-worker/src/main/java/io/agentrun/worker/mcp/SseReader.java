package io.agentrun.worker.mcp;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * Reads server-sent events as they arrive: the worker's one SSE parser, for an MCP server's answer (the model providers'
 * streams are read by their clients). Decoding is incremental, so chunk boundaries anywhere — inside a line, inside a
 * UTF-8 character — are harmless.
 */
final class SseReader implements AutoCloseable {

    /** One event: its {@code event:} name ({@code null} when absent) and its {@code data:} lines joined by newlines. */
    public record Event(@Nullable String name, String data) {
    }

    private final BufferedReader reader;

    public SseReader(InputStream in) {
        this.reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    }

    /** The next event, or {@code null} at the end of the stream. */
    public @Nullable Event next() throws IOException {
        String name = null;
        StringBuilder data = null;
        String line;
        while ((line = reader.readLine()) != null) {
            if (line.isEmpty()) {
                if (data != null) {
                    return new Event(name, data.toString());
                }
                name = null;
                continue;
            }
            if (line.startsWith(":")) {
                continue;
            }
            int colon = line.indexOf(':');
            String field = colon < 0 ? line : line.substring(0, colon);
            String value = colon < 0 ? "" : line.substring(colon + 1);
            if (value.startsWith(" ")) {
                value = value.substring(1);
            }
            if (field.equals("event")) {
                name = value;
            } else if (field.equals("data")) {
                data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
            }
        }
        return data != null ? new Event(name, data.toString()) : null;
    }

    @Override
    public void close() throws IOException {
        reader.close();
    }
}
