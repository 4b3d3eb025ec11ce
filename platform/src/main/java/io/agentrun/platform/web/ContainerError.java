package io.agentrun.platform.web;

import org.jspecify.annotations.Nullable;

/**
 * The errors the servlet container and Spring answer by themselves, before any controller runs, with the
 * stable code and a detail for each. The details never repeat the request's bytes: what was refused may be
 * an attack, a secret pasted in the wrong place, or megabytes long. The api's {@code ErrorCode} lists the
 * same codes with the same statuses (a test holds them together), so one table documents both.
 */
public enum ContainerError {
    REQUEST_LINE_INVALID(400, "invalid_request", "The request is invalid",
            "the request line or headers are not valid HTTP/1.1: a character RFC 9110 does not allow (such as CR, LF or NUL), a malformed line, more than 100 headers, a missing or repeated Host, or a bad Content-Length"),
    PATH_INVALID(400, "invalid_request", "The request is invalid",
            "the request path is not valid: malformed percent-encoding, an encoded '/', '\\' or '.', a '..' above the root, or bytes that are not UTF-8"),
    BAD_REQUEST(400, "invalid_request", "The request is invalid", "the request is not valid HTTP"),
    NOT_FOUND(404, "not_found", "No such resource", "there is no endpoint at this path"),
    METHOD_NOT_ALLOWED(405, "method_not_allowed", "Method not allowed", "this method is not supported here"),
    NOT_ACCEPTABLE(406, "not_acceptable", "Cannot produce an acceptable response", "cannot produce the requested media type"),
    REQUEST_TIMEOUT(408, "request_timeout", "The request did not arrive in time", "the request body did not arrive in time"),
    PAYLOAD_TOO_LARGE(413, "payload_too_large", "The request body is too large", "the request body is too large"),
    URI_TOO_LONG(414, "uri_too_long", "The request line is too long",
            "the request line (method, path and query string) exceeds %d bytes"),
    UNSUPPORTED_MEDIA_TYPE(415, "unsupported_media_type", "Unsupported content type", "this content type is not accepted here"),
    EXPECTATION_FAILED(417, "expectation_failed", "The expectation cannot be met", "only 'Expect: 100-continue' is supported"),
    HEADERS_TOO_LARGE(431, "headers_too_large", "The request headers are too large",
            "the request line and headers together exceed %d bytes"),
    INTERNAL_ERROR(500, "internal_error", "Internal error", "an unexpected error occurred"),
    NOT_IMPLEMENTED(501, "not_implemented", "Not implemented", "this method or transfer encoding is not implemented"),
    UNAVAILABLE(503, "upstream_unavailable", "A backing service is unavailable", "the node is shutting down; try again"),
    HTTP_VERSION_NOT_SUPPORTED(505, "http_version_not_supported", "HTTP version not supported", "send HTTP/1.1");

    private final int status;
    private final String code;
    private final String title;
    private final String detail;

    ContainerError(int status, String code, String title, String detail) {
        this.status = status;
        this.code = code;
        this.title = title;
        this.detail = detail;
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }

    /** The container error a bare status stands for; statuses without an entry fall back by class. */
    public static ContainerError of(int status) {
        for (ContainerError error : values()) {
            if (error.status == status && error != REQUEST_LINE_INVALID && error != PATH_INVALID) {
                return error;
            }
        }
        return status >= 500 ? INTERNAL_ERROR : BAD_REQUEST;
    }

    /**
     * @param maxHeaderBytes the connector's limit for the request line and headers, named in the detail
     * @param instance the request path, or null when the request line could not be read
     */
    public Problem problem(long maxHeaderBytes, @Nullable String instance) {
        return new Problem(code, title, status, detail.formatted(maxHeaderBytes), instance);
    }
}
