package io.agentrun.platform.web;

import io.agentrun.model.json.JsonCodec;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.coyote.ActionCode;
import org.apache.tomcat.util.res.StringManager;
import org.jspecify.annotations.Nullable;

/**
 * Tomcat's error report, as problem+json instead of an HTML page: it answers what Tomcat refuses before
 * the request reaches Spring — a request line or header that is not valid HTTP, headers over the size
 * limit, a path with bad percent-encoding or an encoded {@code /}, an HTTP version other than 1.x — and
 * any error response that nothing else gave a body. It replaces the host's {@link ErrorReportValve}.
 */
final class ProblemReportValve extends ErrorReportValve {

    /** Tomcat's own message (in the JVM's locale, as Tomcat looks it up) for a request line or headers over the limit. */
    private static final String HEADER_TOO_LARGE =
            StringManager.getManager("org.apache.coyote.http11").getString("iib.requestheadertoolarge.error");
    private static final int MAX_INSTANCE = 256;

    private final JsonCodec codec;
    private final long maxHeaderBytes;

    ProblemReportValve(JsonCodec codec, long maxHeaderBytes) {
        this.codec = codec;
        this.maxHeaderBytes = maxHeaderBytes;
        setShowReport(false);
        setShowServerInfo(false);
    }

    @Override
    protected void report(Request request, Response response, @Nullable Throwable throwable) {
        if (response.getStatus() < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
            return;
        }
        AtomicBoolean ioAllowed = new AtomicBoolean(false);
        response.getCoyoteResponse().action(ActionCode.IS_IO_ALLOWED, ioAllowed);
        if (!ioAllowed.get()) {
            return;
        }
        boolean lineRead = !request.getCoyoteRequest().requestURI().isNull();
        Problem problem = classify(response.getStatus(), throwable, response.getMessage() != null, lineRead)
                .problem(maxHeaderBytes, lineRead ? instance(request.getRequestURI()) : null);
        write(response, problem);
    }

    /**
     * Tomcat answers every failure to read the request head with a bare 400, and a path it cannot decode with
     * a 400 and a message; tell the client which limit or rule it hit.
     *
     * @param pathRefused Tomcat gave a message, as it does when it refuses the path (after reading the head)
     * @param lineRead the request line was read whole
     */
    static ContainerError classify(int status, @Nullable Throwable throwable, boolean pathRefused, boolean lineRead) {
        if (status != 400) {
            return ContainerError.of(status);
        }
        if (throwable != null && HEADER_TOO_LARGE.equals(throwable.getMessage())) {
            return lineRead ? ContainerError.HEADERS_TOO_LARGE : ContainerError.URI_TOO_LONG;
        }
        return pathRefused ? ContainerError.PATH_INVALID : ContainerError.REQUEST_LINE_INVALID;
    }

    private void write(Response response, Problem problem) {
        try {
            response.setStatus(problem.status());
            response.setContentType(Problem.MEDIA_TYPE);
            response.setCharacterEncoding(StandardCharsets.UTF_8);
            response.setHeader("Cache-Control", "no-store");
            Writer writer = response.getReporter();
            if (writer != null) {
                writer.write(new String(problem.toJson(codec), StandardCharsets.UTF_8));
                response.finishResponse();
            }
        } catch (IOException | IllegalStateException e) {
            // the client is gone or the response was committed meanwhile: nothing left to tell it
        }
    }

    static @Nullable String instance(@Nullable String uri) {
        if (uri == null) {
            return null;
        }
        return uri.length() > MAX_INSTANCE ? uri.substring(0, MAX_INSTANCE) + "…" : uri;
    }
}
