package io.agentrun.api.console;

import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.Echo;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.platform.digest.Digests;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import org.springframework.http.CacheControl;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * Serves the console's three files from the jar, each with the console's Content-Security-Policy: the page runs
 * only its own script and style (no inline code, no other origin), talks only to this origin, and cannot be framed.
 * The page itself needs no credential; what it reads it reads with the one the person signs in with.
 */
@RestController
class ConsoleController {

    static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
            + "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
    private static final String FOLDER = "/io/agentrun/api/console/";

    private final Map<String, Asset> assets = Map.of(
            "index.html", Asset.load("index.html", MediaType.parseMediaType("text/html;charset=UTF-8")),
            "console.js", Asset.load("console.js", MediaType.parseMediaType("text/javascript;charset=UTF-8")),
            "console.css", Asset.load("console.css", MediaType.parseMediaType("text/css;charset=UTF-8")));

    @GetMapping({"/console", "/console/"})
    public ResponseEntity<byte[]> page(@RequestHeader(name = HttpHeaders.IF_NONE_MATCH, required = false) String ifNoneMatch) {
        return serve(assets.get("index.html"), ifNoneMatch);
    }

    @GetMapping("/console/{file}")
    public ResponseEntity<byte[]> asset(@PathVariable String file,
            @RequestHeader(name = HttpHeaders.IF_NONE_MATCH, required = false) String ifNoneMatch) {
        Asset asset = assets.get(file);
        if (asset == null) {
            throw new ApiProblem(ErrorCode.NOT_FOUND, "the console has no file '" + Echo.of(file) + "'");
        }
        return serve(asset, ifNoneMatch);
    }

    private static ResponseEntity<byte[]> serve(Asset asset, String ifNoneMatch) {
        boolean unchanged = asset.etag().equals(ifNoneMatch);
        // no-cache: revalidated on every load, so a new node's bundle is never mixed with an old page.
        ResponseEntity.BodyBuilder response = ResponseEntity.status(unchanged ? HttpStatus.NOT_MODIFIED : HttpStatus.OK)
                .contentType(asset.type()).eTag(asset.etag()).cacheControl(CacheControl.noCache())
                .headers(ConsoleController::secured);
        return unchanged ? response.build() : response.body(asset.bytes());
    }

    private static void secured(HttpHeaders headers) {
        headers.set("Content-Security-Policy", CSP);
        headers.set("X-Content-Type-Options", "nosniff");
        headers.set("Referrer-Policy", "no-referrer");
        headers.set("Cross-Origin-Opener-Policy", "same-origin");
        headers.set("X-Frame-Options", "DENY");
    }

    private record Asset(byte[] bytes, MediaType type, String etag) {

        static Asset load(String name, MediaType type) {
            try (InputStream in = ConsoleController.class.getResourceAsStream(FOLDER + name)) {
                if (in == null) {
                    throw new IllegalStateException(name + " of the console is missing from the classpath");
                }
                byte[] bytes = in.readAllBytes();
                return new Asset(bytes, type, "\"" + Digests.sha256Hex(bytes).substring(0, 16) + "\"");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
