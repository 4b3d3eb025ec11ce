package io.agentrun.api.problem;

import java.util.Locale;
import org.springframework.http.HttpStatus;

/**
 * Every error the HTTP API reports: a stable {@code code} (the problem's {@code code} member), its
 * status, and a title. Clients branch on the code, never on the detail text.
 */
public enum ErrorCode {
    INVALID_REQUEST(HttpStatus.BAD_REQUEST, "The request is invalid"),
    INVALID_RESPONSE_FORMAT(HttpStatus.BAD_REQUEST, "The response format's schema cannot shape an answer"),
    UNAUTHORIZED(HttpStatus.UNAUTHORIZED, "Missing or invalid credentials"),
    FORBIDDEN(HttpStatus.FORBIDDEN, "These credentials do not allow this"),
    NOT_FOUND(HttpStatus.NOT_FOUND, "No such resource"),
    AGENT_NOT_FOUND(HttpStatus.NOT_FOUND, "No such agent"),
    THREAD_NOT_FOUND(HttpStatus.NOT_FOUND, "No such thread"),
    RUN_NOT_FOUND(HttpStatus.NOT_FOUND, "No such run"),
    FILE_NOT_FOUND(HttpStatus.NOT_FOUND, "No such file"),
    PROJECT_NOT_FOUND(HttpStatus.NOT_FOUND, "No such project"),
    KEY_NOT_FOUND(HttpStatus.NOT_FOUND, "No such key"),
    CONTEXT_NOT_FOUND(HttpStatus.NOT_FOUND, "No such context"),
    ALREADY_EXISTS(HttpStatus.CONFLICT, "It already exists"),
    APPROVAL_NOT_FOUND(HttpStatus.NOT_FOUND, "The run waits for no decision on that tool call"),
    APPROVAL_ALREADY_DECIDED(HttpStatus.CONFLICT, "Someone decided on that tool call already"),
    APPROVAL_EXPIRED(HttpStatus.CONFLICT, "The deadline for that decision passed"),
    RUN_ENDED(HttpStatus.CONFLICT, "The run has ended"),
    METHOD_NOT_ALLOWED(HttpStatus.METHOD_NOT_ALLOWED, "Method not allowed"),
    THREAD_DELETED(HttpStatus.GONE, "The thread was deleted"),
    THREAD_BUSY(HttpStatus.CONFLICT, "The thread has an active run"),
    IDEMPOTENCY_KEY_IN_USE(HttpStatus.CONFLICT, "A request with this idempotency key is in progress"),
    IDEMPOTENCY_KEY_REUSED(HttpStatus.UNPROCESSABLE_CONTENT, "The idempotency key was used with another request"),
    REQUEST_TIMEOUT(HttpStatus.REQUEST_TIMEOUT, "The request did not arrive in time"),
    PAYLOAD_TOO_LARGE(HttpStatus.CONTENT_TOO_LARGE, "The request body is too large"),
    URI_TOO_LONG(HttpStatus.URI_TOO_LONG, "The request line is too long"),
    UNSUPPORTED_MEDIA_TYPE(HttpStatus.UNSUPPORTED_MEDIA_TYPE, "Unsupported content type"),
    NOT_ACCEPTABLE(HttpStatus.NOT_ACCEPTABLE, "Cannot produce an acceptable response"),
    EXPECTATION_FAILED(HttpStatus.EXPECTATION_FAILED, "The expectation cannot be met"),
    HEADERS_TOO_LARGE(HttpStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "The request headers are too large"),
    RATE_LIMITED(HttpStatus.TOO_MANY_REQUESTS, "Too many requests"),
    SPEND_CAP_REACHED(HttpStatus.TOO_MANY_REQUESTS, "The daily spend cap is reached"),
    RUN_FAILED(HttpStatus.BAD_GATEWAY, "The run failed"),
    UPSTREAM_UNAVAILABLE(HttpStatus.SERVICE_UNAVAILABLE, "A backing service is unavailable"),
    RUN_TIMEOUT(HttpStatus.GATEWAY_TIMEOUT, "The run did not finish in time"),
    INTERNAL_ERROR(HttpStatus.INTERNAL_SERVER_ERROR, "Internal error"),
    NOT_IMPLEMENTED(HttpStatus.NOT_IMPLEMENTED, "Not implemented"),
    HTTP_VERSION_NOT_SUPPORTED(HttpStatus.HTTP_VERSION_NOT_SUPPORTED, "HTTP version not supported");

    private final HttpStatus status;
    private final String title;

    ErrorCode(HttpStatus status, String title) {
        this.status = status;
        this.title = title;
    }

    public HttpStatus status() {
        return status;
    }

    public String title() {
        return title;
    }

    /** The wire form, e.g. {@code thread_busy}. */
    public String code() {
        return name().toLowerCase(Locale.ROOT);
    }
}
