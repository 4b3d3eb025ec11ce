package io.agentrun.e2e;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 over a plain socket, for requests no HTTP client would send: any bytes in the request line and
 * headers, repeated headers, bodies that are not what their type says. Every request asks for
 * {@code Connection: close}, so a response is everything until the server closes.
 */
final class RawHttp {

    private RawHttp() {
    }

    /** What came back; {@code status} is 0 when the server answered without a status line (HTTP/0.9 style). */
    record Response(int status, Map<String, List<String>> headers, byte[] body) {

        String header(String name) {
            List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
            return values == null ? "" : values.getFirst();
        }

        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /** A request with a Host, the body's Content-Length (unless {@code headerLines} give one) and Connection: close. */
    static byte[] request(String method, byte[] target, List<byte[]> headerLines, byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes((method + " ").getBytes(StandardCharsets.ISO_8859_1));
        out.writeBytes(target);
        out.writeBytes(" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n".getBytes(StandardCharsets.ISO_8859_1));
        boolean lengthGiven = false;
        for (byte[] line : headerLines) {
            out.writeBytes(line);
            out.writeBytes("\r\n".getBytes(StandardCharsets.ISO_8859_1));
            lengthGiven |= new String(line, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT).startsWith("content-length:");
        }
        if (!lengthGiven && (body.length > 0 || method.equals("POST") || method.equals("PUT"))) {
            out.writeBytes(("Content-Length: " + body.length + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
        }
        out.writeBytes("\r\n".getBytes(StandardCharsets.ISO_8859_1));
        out.writeBytes(body);
        return out.toByteArray();
    }

    static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    /**
     * Sends the bytes as they are and reads until the server closes.
     *
     * @throws AssertionError when no complete response arrives within {@code timeout}: the server hung
     */
    static Response send(URI base, byte[] request, Duration timeout) {
        try (Socket socket = new Socket(base.getHost(), base.getPort())) {
            socket.setSoTimeout((int) timeout.toMillis());
            OutputStream out = socket.getOutputStream();
            try {
                out.write(request);
                out.flush();
            } catch (IOException e) {
                // the server may answer and close before reading all of a refused request: read what it said
            }
            return parse(readUntilClosed(socket.getInputStream(), System.nanoTime() + timeout.toNanos()));
        } catch (SocketTimeoutException e) {
            throw new AssertionError("no complete response within " + timeout, e);
        } catch (IOException e) {
            throw new IllegalStateException("connection to " + base + " failed", e);
        }
    }

    private static byte[] readUntilClosed(InputStream in, long deadline) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] buffer = new byte[16_384];
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                all.write(buffer, 0, n);
                if (complete(all.toByteArray())) {
                    break;
                }
                if (System.nanoTime() > deadline) {
                    throw new SocketTimeoutException("the response did not end in time");
                }
            }
        } catch (java.net.SocketException e) {
            // a reset after the response (the server closed with unread request bytes): keep what arrived
            if (all.size() == 0) {
                throw e;
            }
        }
        return all.toByteArray();
    }

    /**
     * Whether a whole response has arrived: its Content-Length, or its last chunk. A server that refuses a
     * request early may keep the connection open to swallow a body that never comes, so reading until it
     * closes would wait for nothing.
     */
    private static boolean complete(byte[] raw) {
        String text = new String(raw, StandardCharsets.ISO_8859_1);
        int headEnd = text.indexOf("\r\n\r\n");
        if (!text.startsWith("HTTP/1.") || headEnd < 0) {
            return false;
        }
        String head = text.substring(0, headEnd).toLowerCase(Locale.ROOT);
        java.util.regex.Matcher length = java.util.regex.Pattern.compile("\r\ncontent-length: *(\\d+)").matcher(head);
        if (length.find()) {
            return raw.length >= headEnd + 4 + Long.parseLong(length.group(1));
        }
        if (head.contains("\r\ntransfer-encoding: chunked")) {
            return text.endsWith("\r\n0\r\n\r\n") || text.substring(headEnd).startsWith("\r\n\r\n0\r\n\r\n");
        }
        return false;
    }

    static Response parse(byte[] raw) {
        String text = new String(raw, StandardCharsets.ISO_8859_1);
        if (!text.startsWith("HTTP/1.")) {
            return new Response(0, Map.of(), raw);
        }
        int headEnd = text.indexOf("\r\n\r\n");
        String head = headEnd < 0 ? text : text.substring(0, headEnd);
        String[] lines = head.split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.computeIfAbsent(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
                    .add(lines[i].substring(colon + 1).trim());
        }
        byte[] body = headEnd < 0 ? new byte[0] : java.util.Arrays.copyOfRange(raw, headEnd + 4, raw.length);
        List<String> encoding = headers.getOrDefault("transfer-encoding", List.of());
        return new Response(status, headers, encoding.contains("chunked") ? dechunk(body) : body);
    }

    private static byte[] dechunk(byte[] chunked) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int at = 0;
        while (at < chunked.length) {
            int lineEnd = indexOfCrlf(chunked, at);
            int size = Integer.parseInt(new String(chunked, at, lineEnd - at, StandardCharsets.ISO_8859_1).split(";")[0].trim(), 16);
            if (size == 0) {
                break;
            }
            out.write(chunked, lineEnd + 2, size);
            at = lineEnd + 2 + size + 2;
        }
        return out.toByteArray();
    }

    private static int indexOfCrlf(byte[] bytes, int from) {
        for (int i = from; i + 1 < bytes.length; i++) {
            if (bytes[i] == '\r' && bytes[i + 1] == '\n') {
                return i;
            }
        }
        throw new IllegalStateException("a chunk size line without CRLF");
    }
}
