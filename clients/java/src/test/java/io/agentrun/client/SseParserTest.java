package io.agentrun.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SseParserTest {

    private static List<SseMessage> parse(String text) throws IOException {
        return parse(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
    }

    private static List<SseMessage> parse(InputStream in) throws IOException {
        SseParser parser = new SseParser(in);
        List<SseMessage> messages = new ArrayList<>();
        for (SseMessage m; (m = parser.next()) != null; ) {
            messages.add(m);
        }
        return messages;
    }

    @Test
    void readsTheApisFrames() throws IOException {
        List<SseMessage> messages = parse("id: 0\nevent: run_start\ndata: {\"a\":1}\n\nid: 1\nevent: message_delta\ndata: {\"b\":2}\n\n");

        assertThat(messages).containsExactly(
                new SseMessage("0", "run_start", "{\"a\":1}", "0"),
                new SseMessage("1", "message_delta", "{\"b\":2}", "1"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"\n", "\r\n", "\r"})
    void everyLineEndIsALineEnd(String end) throws IOException {
        String text = "id: 7" + end + "event: x" + end + "data: a" + end + "data: b" + end + end + "data: c" + end + end;

        assertThat(parse(text)).containsExactly(new SseMessage("7", "x", "a\nb", "7"), new SseMessage(null, "message", "c", "7"));
    }

    @Test
    void aCrLfSplitAcrossReadsIsOneLineEnd() throws IOException {
        // one byte per read: the LF of a CRLF arrives in a read of its own and must not end a second (empty) line
        InputStream trickle = new ByteArrayInputStream("data: a\r\ndata: b\r\n\r\n".getBytes(StandardCharsets.UTF_8)) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, 1));
            }
        };

        assertThat(parse(trickle)).containsExactly(new SseMessage(null, "message", "a\nb", ""));
    }

    @Test
    void commentsAndKeepalivesAreSkipped() throws IOException {
        assertThat(parse(": keepalive\n\n:another\ndata: x\n: in the middle\n\n")).containsExactly(new SseMessage(null, "message", "x", ""));
    }

    @Test
    void aLeadingBomIsDroppedOnce() throws IOException {
        assertThat(parse("\uFEFFdata: x\n\n\uFEFFdata: y\n\n")).extracting(SseMessage::data).containsExactly("x");
        // the second BOM makes its line's field name "\uFEFFdata", an unknown field: that event has no data
    }

    @Test
    void onlyOneSpaceAfterTheColonIsDropped() throws IOException {
        assertThat(parse("data:x\n\ndata:  y\n\ndata\n\n")).extracting(SseMessage::data).containsExactly("x", " y", "");
    }

    @Test
    void anEventWithoutDataIsNotDispatchedAndResetsItsFields() throws IOException {
        List<SseMessage> messages = parse("event: lonely\nid: 3\n\ndata: next\n\n");

        assertThat(messages).containsExactly(new SseMessage(null, "message", "next", "3"));
    }

    @Test
    void anIdLessEventKeepsTheLastEventIdButHasNoIdOfItsOwn() throws IOException {
        List<SseMessage> messages = parse("id: 4\nevent: message_delta\ndata: {}\n\nevent: run_waiting\ndata: {}\n\n");

        assertThat(messages.get(1).id()).isNull();
        assertThat(messages.get(1).lastEventId()).isEqualTo("4");
    }

    @Test
    void anIdWithNulIsIgnored() throws IOException {
        assertThat(parse("id: 1\u0000\ndata: x\n\n")).containsExactly(new SseMessage(null, "message", "x", ""));
    }

    @Test
    void anUnfinishedEventAtTheEndIsDiscarded() throws IOException {
        assertThat(parse("data: whole\n\nid: 9\ndata: cut off\n")).extracting(SseMessage::data).containsExactly("whole");
        assertThat(parse("data: whole\n\ndata: no line end")).extracting(SseMessage::data).containsExactly("whole");
    }

    @Test
    void multiByteUtf8SplitAcrossReadsIsDecodedWhole() throws IOException {
        byte[] bytes = "data: Grüße, 東京 🚀\n\n".getBytes(StandardCharsets.UTF_8);
        InputStream trickle = new ByteArrayInputStream(bytes) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, 1));
            }
        };

        assertThat(parse(trickle)).extracting(SseMessage::data).containsExactly("Grüße, 東京 🚀");
    }

    @Test
    void longLinesGrowTheBuffer() throws IOException {
        String big = "x".repeat(100_000);

        assertThat(parse("data: " + big + "\n\n")).extracting(SseMessage::data).containsExactly(big);
    }

    @Test
    void retryIsReadOnlyWhenAllDigits() throws IOException {
        SseParser parser = new SseParser(new ByteArrayInputStream("retry: 1500\nretry: 12a\ndata: x\n\n".getBytes(StandardCharsets.UTF_8)));
        parser.next();

        assertThat(parser.retryMillis()).isEqualTo(1500);
    }

    @Test
    void unknownFieldsAreIgnored() throws IOException {
        assertThat(parse("foo: bar\ndata: x\n\n")).containsExactly(new SseMessage(null, "message", "x", ""));
    }
}
