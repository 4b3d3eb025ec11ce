package io.agentrun.api.embed;

import io.agentrun.platform.digest.Digests;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.zip.GZIPOutputStream;
import org.springframework.http.CacheControl;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * Serves the widget script, loaded once per node: gzipped when the browser accepts it, with an ETag and
 * five minutes of caching, and loadable from any page ({@code Cross-Origin-Resource-Policy: cross-origin}).
 */
@RestController
class WidgetController {

    static final String PATH = "/embed/v1/widget.js";
    private static final MediaType JAVASCRIPT = MediaType.parseMediaType("text/javascript;charset=UTF-8");

    private final byte[] script = load();
    private final byte[] gzipped = gzip(script);
    private final String etag = "\"" + Digests.sha256Hex(script).substring(0, 16) + "\"";

    @GetMapping(PATH)
    public ResponseEntity<byte[]> widget(@RequestHeader(name = HttpHeaders.ACCEPT_ENCODING, required = false) String encodings,
            @RequestHeader(name = HttpHeaders.IF_NONE_MATCH, required = false) String ifNoneMatch) {
        ResponseEntity.BodyBuilder response = ResponseEntity.status(etag.equals(ifNoneMatch) ? HttpStatus.NOT_MODIFIED : HttpStatus.OK)
                .contentType(JAVASCRIPT)
                .eTag(etag)
                .cacheControl(CacheControl.maxAge(java.time.Duration.ofMinutes(5)).cachePublic())
                .header("Cross-Origin-Resource-Policy", "cross-origin")
                .header("X-Content-Type-Options", "nosniff")
                .header(HttpHeaders.VARY, HttpHeaders.ACCEPT_ENCODING);
        if (etag.equals(ifNoneMatch)) {
            return response.build();
        }
        boolean gzip = encodings != null && encodings.contains("gzip");
        return gzip ? response.header(HttpHeaders.CONTENT_ENCODING, "gzip").body(gzipped) : response.body(script);
    }

    private static byte[] load() {
        try (InputStream in = WidgetController.class.getResourceAsStream("/io/agentrun/api/embed/widget.js")) {
            if (in == null) {
                throw new IllegalStateException("widget.js is missing from the classpath");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] gzip(byte[] bytes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream zip = new GZIPOutputStream(out)) {
            zip.write(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
