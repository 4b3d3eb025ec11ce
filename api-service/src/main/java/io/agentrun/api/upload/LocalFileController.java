package io.agentrun.api.upload;

import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.files.BlobPath;
import io.agentrun.files.FileStore;
import io.agentrun.files.LocalFileStore;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.MediaType;
import org.springframework.http.MediaTypeFactory;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.util.UriUtils;

/**
 * The local store's signed URLs, {@code PUT} and {@code GET /files/<blob path>?expires=&signature=}: no API key,
 * the signature is the permission. Uploads stream to disk; an oversized one is refused as soon as the size limit
 * is passed (at once when {@code Content-Length} says so). With the s3 back end these paths do not exist.
 */
@RestController
class LocalFileController {

    private static final Logger log = LoggerFactory.getLogger(LocalFileController.class);
    /** Served as what they were uploaded as; anything else (a purpose configured wider) as bytes. */
    private static final List<String> SERVED_INLINE = List.of("image/png", "image/jpeg", "image/gif", "image/webp",
            "application/pdf", "text/plain", "text/markdown", "audio/mpeg", "audio/wav", "audio/x-wav", "audio/ogg",
            "audio/webm", "audio/mp4");

    private final @Nullable LocalFileStore store;

    LocalFileController(FileStore store) {
        this.store = store instanceof LocalFileStore local ? local : null;
    }

    @PutMapping(LocalFileStore.PATH_PREFIX + "**")
    public void upload(@RequestParam(required = false) @Nullable String expires,
            @RequestParam(required = false) @Nullable String signature,
            HttpServletRequest request, HttpServletResponse response) throws IOException {
        LocalFileStore local = local(request);
        BlobPath path = checked(local, "PUT", request, expires, signature, request.getContentType());
        if (request.getContentLengthLong() > local.maxSize()) {
            throw tooLarge(local);
        }
        try {
            local.store(path, String.valueOf(request.getContentType()), request.getInputStream());
        } catch (LocalFileStore.TooLargeException e) {
            throw tooLarge(local);
        } catch (IOException e) {
            log.warn("upload of a file of project {} aborted: {}", path.projectId(), e.toString());
            throw new ApiProblem(ErrorCode.INVALID_REQUEST, "the upload was interrupted; nothing was stored");
        }
        response.setStatus(HttpServletResponse.SC_OK);
        response.setContentType(MediaType.APPLICATION_JSON_VALUE);
        response.getOutputStream().write(("{\"blobPath\":\"" + path + "\"}").getBytes(StandardCharsets.UTF_8));
    }

    @GetMapping(LocalFileStore.PATH_PREFIX + "**")
    public void view(@RequestParam(required = false) @Nullable String expires,
            @RequestParam(required = false) @Nullable String signature,
            HttpServletRequest request, HttpServletResponse response) throws IOException {
        LocalFileStore local = local(request);
        BlobPath path = checked(local, "GET", request, expires, signature, null);
        Path file = local.open(path).orElseThrow(() -> new ApiProblem(ErrorCode.FILE_NOT_FOUND, UploadController.NO_SUCH_FILE));
        String type = local.contentType(path)
                .or(() -> MediaTypeFactory.getMediaType(path.filename()).map(MediaType::toString))
                .filter(SERVED_INLINE::contains).orElse(MediaType.APPLICATION_OCTET_STREAM_VALUE);
        response.setContentType(type);
        response.setContentLengthLong(Files.size(file));
        // User content on our origin: never sniffed into HTML, never run as a page.
        response.setHeader("X-Content-Type-Options", "nosniff");
        response.setHeader("Content-Security-Policy", "sandbox; default-src 'none'");
        response.setHeader("Cache-Control", "private, no-store");
        try (OutputStream out = response.getOutputStream()) {
            Files.copy(file, out);
        }
    }

    private LocalFileStore local(HttpServletRequest request) {
        if (store == null) {
            throw new ApiProblem(ErrorCode.NOT_FOUND, "no endpoint at " + request.getRequestURI());
        }
        return store;
    }

    private static BlobPath checked(LocalFileStore store, String method, HttpServletRequest request,
            @Nullable String expires, @Nullable String signature, @Nullable String contentType) {
        String uri = request.getRequestURI();
        int start = request.getContextPath().length() + LocalFileStore.PATH_PREFIX.length();
        if (uri.length() <= start) {
            // "/files" and "/files/" match the mapping too, and name no file
            throw new ApiProblem(ErrorCode.NOT_FOUND, "no file at " + uri);
        }
        String raw = uri.substring(start);
        try {
            return store.check(method, UriUtils.decode(raw, StandardCharsets.UTF_8), expires, signature, contentType);
        } catch (LocalFileStore.RefusedException e) {
            throw new ApiProblem(ErrorCode.FORBIDDEN, e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new ApiProblem(ErrorCode.INVALID_REQUEST, "not a file URL: " + e.getMessage());
        }
    }

    private static ApiProblem tooLarge(LocalFileStore store) {
        return new ApiProblem(ErrorCode.PAYLOAD_TOO_LARGE, "the file exceeds " + store.maxSize() + " bytes; nothing was stored");
    }
}
