package io.agentrun.api.upload;

import io.agentrun.api.caller.Caller;
import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.api.problem.JsonAnswers;
import io.agentrun.api.problem.StrictJson;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.files.BlobPath;
import io.agentrun.files.FileStore;
import io.agentrun.files.LocalFileStore;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;

/**
 * <ul>
 *   <li>{@code POST /api/v1/uploads/request} {@code {filename, contentType, purpose}} → {@code {fileId, signedUrl,
 *       blobPath, expiresAt}}: where to {@code PUT} the file, with that content type, before it expires.</li>
 *   <li>{@code GET /api/v1/uploads/view-url?blobPath=} → {@code {viewUrl, expiresAt}}: a short-lived URL to read
 *       an uploaded file, the form a run accepts in {@code images}, {@code documents} and {@code audios}.</li>
 * </ul>
 * Another project's file and a file that does not exist get the same 404, so ids cannot be probed.
 */
@RestController
class UploadController {

    private static final int MAX_BODY = 16 * 1024;
    private static final Set<String> FIELDS = Set.of("filename", "contentType", "purpose");
    static final String NO_SUCH_FILE = "no such file in this project";

    private final FileStore store;
    private final UploadSettings settings;
    private final JsonAnswers answers;
    private final StrictJson json;

    UploadController(FileStore store, UploadSettings settings, JsonCodec codec, JsonAnswers answers) {
        this.store = store;
        this.settings = settings;
        this.answers = answers;
        this.json = new StrictJson(codec);
    }

    @PostMapping("/api/v1/uploads/request")
    public ResponseEntity<byte[]> request(Caller caller, HttpServletRequest request) {
        JsonNode body = body(request);
        String filename = field(body, "filename");
        String contentType = LocalFileStore.essence(field(body, "contentType"));
        String purpose = field(body, "purpose");
        if (!settings.purposes().containsKey(purpose)) {
            throw invalid("unknown purpose; expected one of " + String.join(", ", settings.purposes().keySet()));
        }
        if (!settings.allows(purpose, contentType)) {
            throw new ApiProblem(ErrorCode.UNSUPPORTED_MEDIA_TYPE, "content type not accepted for purpose " + purpose
                    + "; accepted: " + String.join(", ", settings.purposes().get(purpose)));
        }
        String problem = BlobPath.filenameProblem(filename);
        if (problem != null) {
            throw invalid("'filename': " + problem);
        }
        BlobPath path = BlobPath.newFile(caller.projectId(), filename);
        FileStore.SignedUrl upload = store.uploadUrl(path, contentType);
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("fileId", path.fileId());
        answer.put("signedUrl", upload.url().toString());
        answer.put("blobPath", path.toString());
        answer.put("expiresAt", upload.expiresAt().toString());
        return answers.noStore(HttpStatus.OK, answer);
    }

    @GetMapping("/api/v1/uploads/view-url")
    public ResponseEntity<byte[]> viewUrl(Caller caller, @RequestParam(name = "blobPath", required = false) @Nullable String blobPath) {
        if (blobPath == null || blobPath.isBlank()) {
            throw invalid("the blobPath query parameter is required");
        }
        BlobPath path;
        try {
            path = BlobPath.parse(blobPath);
        } catch (BlobPath.InvalidBlobPathException e) {
            throw invalid("'blobPath' is not a blob path: " + e.getMessage());
        }
        if (!path.projectId().equals(caller.projectId()) || !store.exists(path)) {
            throw new ApiProblem(ErrorCode.FILE_NOT_FOUND, NO_SUCH_FILE);
        }
        FileStore.SignedUrl view = store.viewUrl(path);
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("viewUrl", view.url().toString());
        answer.put("expiresAt", view.expiresAt().toString());
        return answers.noStore(HttpStatus.OK, answer);
    }

    private JsonNode body(HttpServletRequest request) {
        if (!isJson(request.getContentType())) {
            throw new ApiProblem(ErrorCode.UNSUPPORTED_MEDIA_TYPE, "send the request body as application/json");
        }
        byte[] bytes;
        try (InputStream in = request.getInputStream()) {
            bytes = in.readNBytes(MAX_BODY + 1);
        } catch (IOException e) {
            throw invalid("the request body could not be read");
        }
        if (bytes.length > MAX_BODY) {
            throw new ApiProblem(ErrorCode.PAYLOAD_TOO_LARGE, "the request body exceeds " + MAX_BODY + " bytes");
        }
        JsonNode root = json.tree(bytes);
        if (root == null || !root.isObject()) {
            throw invalid("the body must be a JSON object with filename, contentType and purpose");
        }
        for (String name : root.propertyNames()) {
            if (!FIELDS.contains(name)) {
                throw invalid("unknown field; expected filename, contentType and purpose");
            }
        }
        return root;
    }

    private static boolean isJson(@Nullable String contentType) {
        try {
            return contentType != null && MediaType.parseMediaType(contentType).isCompatibleWith(MediaType.APPLICATION_JSON);
        } catch (org.springframework.http.InvalidMediaTypeException e) {
            return false;
        }
    }

    private static String field(JsonNode body, String name) {
        JsonNode value = body.get(name);
        if (value == null || !value.isString() || value.asString().isBlank()) {
            throw invalid("'" + name + "' is required and must be a non-empty string");
        }
        return value.asString();
    }

    private static ApiProblem invalid(String detail) {
        return new ApiProblem(ErrorCode.INVALID_REQUEST, detail);
    }
}
