package io.agentrun.api.problem;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.web.Problem;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;

/**
 * The api's problem responses: an {@link ErrorCode} and a detail as an RFC 9457 {@link Problem} (whose
 * {@code toJson} is the one place problem bodies are made), never cached.
 */
public final class ProblemResponses {

    public static final MediaType PROBLEM_JSON = MediaType.parseMediaType(Problem.MEDIA_TYPE);

    private final JsonCodec codec;

    public ProblemResponses(JsonCodec codec) {
        this.codec = codec;
    }

    public ResponseEntity<byte[]> of(ErrorCode code, String detail, String instance) {
        return ResponseEntity.status(code.status())
                .header(HttpHeaders.CONTENT_TYPE, PROBLEM_JSON.toString())
                .header(HttpHeaders.CACHE_CONTROL, "no-store")
                .body(body(code, detail, instance));
    }

    public byte[] body(ErrorCode code, String detail, String instance) {
        return new Problem(code.code(), code.title(), code.status().value(), detail, instance).toJson(codec);
    }
}
