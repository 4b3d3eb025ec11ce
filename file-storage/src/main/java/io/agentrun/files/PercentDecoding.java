package io.agentrun.files;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;

/**
 * Percent-decoding of the paths and query values of file URLs, strictly: a {@code %} not followed by two
 * hex digits, or bytes that are not well-formed UTF-8 (an overlong {@code %C0%AF} for {@code /}), make the
 * URL one we did not issue. {@link java.net.URLDecoder} and {@link java.net.URI#getPath()} would put U+FFFD
 * in their place and go on, and Tomcat, which serves the file, refuses them: two readings of one URL.
 */
final class PercentDecoding {

    private PercentDecoding() {
    }

    /** Not strictly percent-encoded UTF-8. */
    static final class MalformedException extends IllegalArgumentException {
        MalformedException(String message) {
            super(message);
        }
    }

    /** @throws MalformedException when the text is not strictly percent-encoded UTF-8 */
    static String decode(String encoded) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(encoded.length());
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c == '%') {
                if (i + 2 >= encoded.length()) {
                    throw new MalformedException("a '%' without two hex digits");
                }
                bytes.write(hex(encoded.charAt(i + 1)) << 4 | hex(encoded.charAt(i + 2)));
                i += 2;
            } else if (c < 0x80) {
                bytes.write(c);
            } else {
                throw new MalformedException("a character that is not percent-encoded");
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            throw new MalformedException("bytes that are not UTF-8");
        }
    }

    private static int hex(char c) {
        int value = Character.digit(c, 16);
        if (value < 0) {
            throw new MalformedException("a '%' without two hex digits");
        }
        return value;
    }
}
