package io.agentrun.api.problem;

import io.agentrun.model.json.JsonCodec;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;

/**
 * Reads request bodies strictly, so that no two parsers can disagree on what a body says:
 * <ul>
 * <li>the bytes must be well-formed UTF-8 (RFC 8259): Jackson on its own decodes an overlong form such as
 *     {@code C0 A2} as {@code "}, a classic way past a filter that checked the bytes;</li>
 * <li>a key may appear once per object: of {@code {"query":"a","query":"b"}} a gateway may check the first
 *     and we would run the second;</li>
 * <li>typed reads (admin API) refuse unknown fields, because a typo such as {@code modle} must not silently
 *     fall back to a default.</li>
 * </ul>
 */
public final class StrictJson {

    private static final String DUPLICATE = "Duplicate Object property \"";

    private final ObjectReader tree;
    private final ObjectReader typed;

    public StrictJson(JsonCodec codec) {
        this.tree = codec.mapper().reader().with(StreamReadFeature.STRICT_DUPLICATE_DETECTION);
        this.typed = tree.with(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    }

    /** @throws ApiProblem {@code invalid_request} naming what is wrong */
    public <T> T read(byte[] body, Class<T> type) {
        if (body.length == 0) {
            throw invalid("send a JSON body");
        }
        String text = utf8(body);
        return bound(() -> typed.forType(type).readValue(text));
    }

    /**
     * A tree already read strictly ({@link #tree}) bound to a type, refusing unknown fields like {@link #read(byte[], Class)}.
     *
     * @throws ApiProblem {@code invalid_request} naming what is wrong
     */
    public <T> T read(JsonNode tree, Class<T> type) {
        return bound(() -> typed.forType(type).readValue(tree));
    }

    /** A typed read's value, or the problem naming why there is none. */
    private static <T> T bound(java.util.function.Supplier<T> read) {
        T value;
        try {
            value = read.get();
        } catch (JacksonException e) {
            throw invalid(reason(e));
        }
        if (value == null) {
            throw invalid("send a JSON object");
        }
        return value;
    }

    /**
     * Any JSON value; the caller checks its shape.
     *
     * @throws ApiProblem {@code invalid_request} when the body is not UTF-8, not JSON, or repeats a key
     */
    public JsonNode tree(byte[] body) {
        String text = utf8(body);
        try {
            return tree.readTree(text);
        } catch (JacksonException e) {
            throw invalid(duplicateKey(e) ? reason(e) : "the body is not valid JSON (" + reason(e) + ")");
        }
    }

    /** The body as text, or a problem naming the offset of its first byte that is not well-formed UTF-8. */
    static String utf8(byte[] body) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(body);
        CharBuffer out = CharBuffer.allocate(body.length);
        CoderResult result = decoder.decode(in, out, true);
        if (!result.isError()) {
            result = decoder.flush(out);
        }
        if (result.isError()) {
            throw invalid("the body is not valid UTF-8 (byte " + in.position() + ")");
        }
        return out.flip().toString();
    }

    /** The constructor's own message when validation failed there, else Jackson's, without the noise. */
    public static String reason(JacksonException e) {
        Throwable cause = e.getCause();
        while (cause != null) {
            if (cause instanceof IllegalArgumentException) {
                return cause.getMessage();
            }
            cause = cause.getCause();
        }
        String message = e.getOriginalMessage();
        if (message.startsWith(DUPLICATE)) {
            int end = message.indexOf('"', DUPLICATE.length());
            String key = message.substring(DUPLICATE.length(), end > 0 ? end : message.length());
            return "the key '" + Echo.of(key) + "' appears more than once in an object";
        }
        int details = message.indexOf(" (class ");
        return details > 0 ? message.substring(0, details) : message;
    }

    private static boolean duplicateKey(JacksonException e) {
        return e.getOriginalMessage().startsWith(DUPLICATE);
    }

    private static ApiProblem invalid(String detail) {
        return new ApiProblem(ErrorCode.INVALID_REQUEST, detail);
    }
}
