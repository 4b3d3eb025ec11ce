package io.agentrun.platform.web;

import io.agentrun.model.json.JsonCodec;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotWritableException;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Answers the container's error page ({@code /error}, where Tomcat forwards a {@code sendError} from a
 * servlet or from Spring's own exception resolver) as problem+json, in place of Boot's JSON error map.
 * Requested directly, {@code /error} is an unknown path.
 */
@RestController
final class ProblemErrorController implements ErrorController {

    private final JsonCodec codec;
    private final long maxHeaderBytes;

    ProblemErrorController(JsonCodec codec, long maxHeaderBytes) {
        this.codec = codec;
        this.maxHeaderBytes = maxHeaderBytes;
    }

    @RequestMapping("/error")
    ResponseEntity<byte[]> error(HttpServletRequest request) {
        Object status = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        Object uri = request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI);
        ContainerError error = status instanceof Integer code ? ContainerError.of(code) : ContainerError.NOT_FOUND;
        if (request.getAttribute(RequestDispatcher.ERROR_EXCEPTION) instanceof HttpMessageNotWritableException
                && AcceptedCharsets.asksForAnotherCharset(request.getHeader(HttpHeaders.ACCEPT))) {
            error = ContainerError.NOT_ACCEPTABLE;
        }
        Problem problem = error.problem(maxHeaderBytes,
                ProblemReportValve.instance(uri instanceof String path ? path : request.getRequestURI()));
        return ResponseEntity.status(problem.status())
                .header(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE)
                .header(HttpHeaders.CACHE_CONTROL, "no-store")
                .body(problem.toJson(codec));
    }
}
