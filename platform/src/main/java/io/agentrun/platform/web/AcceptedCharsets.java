package io.agentrun.platform.web;

import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;

/**
 * Every response is UTF-8. Spring picks the most specific media range of {@code Accept} and only then finds it
 * cannot write {@code application/json; charset=utf-16}; that is a 406 for the client to fix, not a 500
 * (found by RequestFuzzIT).
 */
public final class AcceptedCharsets {

    private AcceptedCharsets() {
    }

    /** Whether a media range of this Accept asks for a charset other than UTF-8. */
    public static boolean asksForAnotherCharset(@Nullable String accept) {
        if (accept == null) {
            return false;
        }
        try {
            return MediaType.parseMediaTypes(accept).stream()
                    .anyMatch(type -> type.getParameter("charset") != null
                            && !type.getParameter("charset").replace("\"", "").equalsIgnoreCase(StandardCharsets.UTF_8.name()));
        } catch (InvalidMediaTypeException e) {
            return false;
        }
    }
}
