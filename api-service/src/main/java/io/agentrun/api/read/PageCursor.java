package io.agentrun.api.read;

import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.jspecify.annotations.Nullable;

/**
 * The {@code before} cursors of the list endpoints, opaque to clients (base64url), so what they hold can
 * change without breaking anyone: a history position ({@code m:<position>}), or a run's creation time and
 * id ({@code r:<ms>:<run id>}, ties broken by id).
 */
final class PageCursor {

    static final int MAX_LIMIT = 100;

    private PageCursor() {
    }

    record RunPosition(long createdMs, String runId) {
        static final RunPosition NEWEST = new RunPosition(Long.MAX_VALUE, "\\uffff");
    }

    static String ofMessage(long position) {
        return encode("m:" + position);
    }

    static String ofRun(long createdMs, String runId) {
        return encode("r:" + createdMs + ":" + runId);
    }

    /** @return the history position to read before; {@code Long.MAX_VALUE} (the end) without a cursor */
    static long messagePosition(@Nullable String cursor) {
        if (cursor == null) {
            return Long.MAX_VALUE;
        }
        String text = decode(cursor);
        try {
            if (text.startsWith("m:")) {
                return Long.parseLong(text.substring(2));
            }
        } catch (NumberFormatException e) {
            // falls through to the refusal
        }
        throw notACursor();
    }

    static RunPosition runPosition(@Nullable String cursor) {
        if (cursor == null) {
            return RunPosition.NEWEST;
        }
        String[] parts = decode(cursor).split(":", 3);
        try {
            if (parts.length == 3 && parts[0].equals("r")) {
                return new RunPosition(Long.parseLong(parts[1]), parts[2]);
            }
        } catch (NumberFormatException e) {
            // falls through to the refusal
        }
        throw notACursor();
    }

    /** {@code limit}: 1 to {@value #MAX_LIMIT}, {@code fallback} when absent. */
    static int limit(@Nullable String limit, int fallback) {
        if (limit == null) {
            return fallback;
        }
        try {
            int value = Integer.parseInt(limit);
            if (value >= 1 && value <= MAX_LIMIT) {
                return value;
            }
        } catch (NumberFormatException e) {
            // falls through to the refusal
        }
        throw new ApiProblem(ErrorCode.INVALID_REQUEST, "'limit' must be a whole number from 1 to " + MAX_LIMIT);
    }

    private static String encode(String text) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    private static String decode(String cursor) {
        try {
            return new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw notACursor();
        }
    }

    private static ApiProblem notACursor() {
        return new ApiProblem(ErrorCode.INVALID_REQUEST, "'before' is not a cursor this API gave out");
    }
}
