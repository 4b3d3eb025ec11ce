package io.agentrun.api.problem;

import io.agentrun.model.json.JsonCodec;
import java.nio.charset.StandardCharsets;
import org.springframework.http.CacheControl;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;

/**
 * The api's JSON answers, as {@link ProblemResponses} are its problems: written by the one codec, as
 * {@code application/json}, and kept out of every cache when they carry a caller's own data (a run, a key, a secret).
 */
public final class JsonAnswers {

    private final JsonCodec codec;

    public JsonAnswers(JsonCodec codec) {
        this.codec = codec;
    }

    /** {@code body} as JSON with {@code status}. */
    public ResponseEntity<byte[]> of(HttpStatus status, Object body) {
        return ResponseEntity.status(status).contentType(MediaType.APPLICATION_JSON).body(bytes(body));
    }

    /** As {@link #of}, with {@code Cache-Control: no-store}: no cache on the way may keep it. */
    public ResponseEntity<byte[]> noStore(HttpStatus status, Object body) {
        return ResponseEntity.status(status).contentType(MediaType.APPLICATION_JSON).cacheControl(CacheControl.noStore())
                .body(bytes(body));
    }

    /** The JSON of {@code body}, for an answer with headers of its own. */
    public byte[] bytes(Object body) {
        return codec.write(body).getBytes(StandardCharsets.UTF_8);
    }
}
