package io.agentrun.client;

import java.io.Serial;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A call that did not succeed: the api's RFC 9457 problem ({@code code}, {@code status}, {@code title},
 * {@code detail}, {@code Retry-After}, the run it names), or a failure of the SDK itself with status 0 and one of
 * the SDK's own codes: {@code connection_failed} (no answer within the retry deadline), {@code stream_lost} (a
 * stream could not be joined again before its deadline), {@code invalid_response} (an answer the SDK cannot read),
 * {@code interrupted}. Never carries a credential: messages are built from the problem and the request's path only.
 */
public final class AgentrunException extends RuntimeException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final String code;
    private final int status;
    private final String title;
    private final @Nullable String detail;
    private final transient @Nullable Duration retryAfter;
    private final @Nullable String runId;

    AgentrunException(String code, int status, String title, @Nullable String detail, @Nullable Duration retryAfter,
            @Nullable String runId, @Nullable Throwable cause) {
        super(message(code, status, title, detail, runId), cause);
        this.code = code;
        this.status = status;
        this.title = title;
        this.detail = detail;
        this.retryAfter = retryAfter;
        this.runId = runId;
    }

    /** A failure of the SDK itself (no HTTP answer to show), status 0. */
    static AgentrunException local(String code, String title, @Nullable String runId, @Nullable Throwable cause) {
        return new AgentrunException(code, 0, title, cause == null ? null : cause.getClass().getSimpleName(), null, runId, cause);
    }

    /** The problem's stable {@code code}, e.g. {@code thread_busy}; or one of the SDK's own (see the class). */
    public String code() {
        return code;
    }

    /** The HTTP status; 0 when no answer arrived. */
    public int status() {
        return status;
    }

    public String title() {
        return title;
    }

    public Optional<String> detail() {
        return Optional.ofNullable(detail);
    }

    /** The answer's {@code Retry-After}, when it had one (429, some 503). */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }

    /** The run the failure concerns, when known (e.g. {@code x-run-id} of a 503, the run of a stream that was lost). */
    public Optional<String> runId() {
        return Optional.ofNullable(runId);
    }

    /**
     * Whether the same request may succeed later, as the api's error table says: 409
     * {@code idempotency_key_in_use}, 429 with {@code Retry-After}, 503; and the SDK's own connection failures.
     */
    public boolean isRetryable() {
        return switch (status) {
            case 0 -> "connection_failed".equals(code) || "stream_lost".equals(code);
            case 409 -> "idempotency_key_in_use".equals(code);
            case 429 -> retryAfter != null;
            case 503 -> true;
            default -> false;
        };
    }

    private static String message(String code, int status, String title, @Nullable String detail, @Nullable String runId) {
        StringBuilder m = new StringBuilder();
        if (status > 0) {
            m.append(status).append(' ');
        }
        m.append(code).append(": ").append(title);
        if (detail != null && !detail.isBlank()) {
            m.append(" (").append(detail).append(')');
        }
        if (runId != null) {
            m.append(" [run ").append(runId).append(']');
        }
        return m.toString();
    }
}
