package io.agentrun.api.problem;

import io.agentrun.platform.web.AcceptedCharsets;
import io.lettuce.core.RedisException;
import jakarta.servlet.http.HttpServletRequest;
import org.apache.tomcat.util.http.InvalidParameterException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.http.converter.HttpMessageNotWritableException;
import org.springframework.http.ResponseEntity;
import org.springframework.security.web.firewall.RequestRejectedException;
import org.springframework.web.HttpMediaTypeNotAcceptableException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.MissingRequestHeaderException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.resource.NoResourceFoundException;

/**
 * The exception-to-status table of the HTTP edge: every failure leaves as problem+json with a stable
 * code. 4xx are logged at WARN without bodies or credentials, 5xx at ERROR.
 */
@RestControllerAdvice
class ProblemHandler {

    private static final Logger log = LoggerFactory.getLogger(ProblemHandler.class);

    private final ProblemResponses problems;

    ProblemHandler(ProblemResponses problems) {
        this.problems = problems;
    }

    @ExceptionHandler(ApiProblem.class)
    ResponseEntity<byte[]> apiProblem(ApiProblem e, HttpServletRequest request) {
        ResponseEntity<byte[]> response = respond(e.code(), e.detail(), request, null);
        if (e.retryAfter() == null && e.headers().isEmpty()) {
            return response;
        }
        HttpHeaders headers = new HttpHeaders();
        headers.putAll(response.getHeaders());
        e.headers().forEach(headers::set);
        if (e.retryAfter() != null) {
            headers.set(HttpHeaders.RETRY_AFTER, Long.toString(Math.max(1, (e.retryAfter().toMillis() + 999) / 1000)));
        }
        return ResponseEntity.status(response.getStatusCode()).headers(headers).body(response.getBody());
    }

    @ExceptionHandler(NoResourceFoundException.class)
    ResponseEntity<byte[]> noRoute(NoResourceFoundException e, HttpServletRequest request) {
        return respond(ErrorCode.NOT_FOUND, "no endpoint at " + request.getRequestURI(), request, null);
    }

    @ExceptionHandler(HttpRequestMethodNotSupportedException.class)
    ResponseEntity<byte[]> method(HttpRequestMethodNotSupportedException e, HttpServletRequest request) {
        return respond(ErrorCode.METHOD_NOT_ALLOWED, request.getMethod() + " is not supported here", request, null);
    }

    @ExceptionHandler(HttpMediaTypeNotSupportedException.class)
    ResponseEntity<byte[]> mediaType(HttpMediaTypeNotSupportedException e, HttpServletRequest request) {
        return respond(ErrorCode.UNSUPPORTED_MEDIA_TYPE, "send application/json", request, null);
    }

    @ExceptionHandler(HttpMediaTypeNotAcceptableException.class)
    ResponseEntity<byte[]> notAcceptable(HttpMediaTypeNotAcceptableException e, HttpServletRequest request) {
        return respond(ErrorCode.NOT_ACCEPTABLE, "cannot produce the requested media type", request, null);
    }

    /**
     * A body {@link StrictJsonBodies} never saw: absent where the handler needs one, or not readable at all (its own
     * failures are {@link ApiProblem}s with the reason).
     */
    @ExceptionHandler(HttpMessageNotReadableException.class)
    ResponseEntity<byte[]> unreadable(HttpMessageNotReadableException e, HttpServletRequest request) {
        boolean absent = e.getMessage() != null && e.getMessage().startsWith("Required request body is missing");
        return respond(ErrorCode.INVALID_REQUEST, absent ? "send a JSON body" : "the request body could not be read", request, null);
    }

    @ExceptionHandler(MissingRequestHeaderException.class)
    ResponseEntity<byte[]> missingHeader(MissingRequestHeaderException e, HttpServletRequest request) {
        return respond(ErrorCode.INVALID_REQUEST, "missing header " + e.getHeaderName(), request, null);
    }

    /** Tomcat decodes the query string when it is first read, strictly: bad percent-encoding or bytes that are not UTF-8. */
    @ExceptionHandler(InvalidParameterException.class)
    ResponseEntity<byte[]> queryString(InvalidParameterException e, HttpServletRequest request) {
        if (e.getErrorCode() == ErrorCode.PAYLOAD_TOO_LARGE.status().value()) {
            // a form-encoded POST body over Tomcat's max-http-form-post-size, read for its parameters
            return respond(ErrorCode.PAYLOAD_TOO_LARGE, "the form body is too large", request, null);
        }
        return respond(ErrorCode.INVALID_REQUEST, "the query string is not valid: malformed percent-encoding, bytes that are"
                + " not UTF-8, or too many parameters", request, null);
    }

    /** An Accept or Content-Type that is not a media type at all (found by RequestFuzzIT: it was a 500). */
    @ExceptionHandler(InvalidMediaTypeException.class)
    ResponseEntity<byte[]> invalidMediaType(InvalidMediaTypeException e, HttpServletRequest request) {
        return respond(ErrorCode.INVALID_REQUEST, "a media type in Accept or Content-Type is not valid", request, null);
    }

    /**
     * Spring Security's firewall, when a handler reads a header or parameter it refuses (a control character such as a
     * tab in {@code Accept}); its message may quote the request, so it is not repeated.
     */
    @ExceptionHandler(RequestRejectedException.class)
    ResponseEntity<byte[]> rejected(RequestRejectedException e, HttpServletRequest request) {
        return respond(ErrorCode.INVALID_REQUEST, "the request is not valid: a path, method, header or parameter the api refuses as"
                + " ambiguous", request, null);
    }

    @ExceptionHandler(HttpMessageNotWritableException.class)
    ResponseEntity<byte[]> notWritable(HttpMessageNotWritableException e, HttpServletRequest request) {
        if (AcceptedCharsets.asksForAnotherCharset(request.getHeader(HttpHeaders.ACCEPT))) {
            return respond(ErrorCode.NOT_ACCEPTABLE, "responses are UTF-8; Accept asks for another charset", request, null);
        }
        return unexpected(e, request);
    }

    @ExceptionHandler(RedisException.class)
    ResponseEntity<byte[]> redis(RedisException e, HttpServletRequest request) {
        return respond(ErrorCode.UPSTREAM_UNAVAILABLE, "state storage is unavailable; try again shortly", request, e);
    }

    @ExceptionHandler(Exception.class)
    ResponseEntity<byte[]> unexpected(Exception e, HttpServletRequest request) {
        return respond(ErrorCode.INTERNAL_ERROR, "an unexpected error occurred", request, e);
    }

    private ResponseEntity<byte[]> respond(ErrorCode code, String detail, HttpServletRequest request, Exception cause) {
        if (code.status().is5xxServerError()) {
            log.error("{} {} -> {} {}: {}", request.getMethod(), request.getRequestURI(), code.status().value(), code.code(), detail, cause);
        } else {
            log.warn("{} {} -> {} {}: {}", request.getMethod(), request.getRequestURI(), code.status().value(), code.code(), detail);
        }
        return problems.of(code, detail, request.getRequestURI());
    }
}
