package io.agentrun.api.problem;

import io.agentrun.model.json.JsonCodec;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;

/**
 * Renders RFC 9457 problem documents: {@code type}, {@code title}, {@code status}, {@code detail},
 * {@code instance} and our stable {@code code}. The one place problem bodies are made.
 */
public final class ProblemResponses {

    public static final MediaType PROBLEM_JSON = MediaType.APPLICATION_PROBLEM_JSON;

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
        Map<String, Object> problem = new LinkedHashMap<>();
        problem.put("type", "urn:agentrun:problem:" + code.code());
        problem.put("title", code.title());
        problem.put("status", code.status().value());
        problem.put("detail", detail);
        problem.put("instance", instance);
        problem.put("code", code.code());
        return codec.write(problem).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }
}
