package io.agentrun.platform.web;

import io.agentrun.model.json.JsonCodec;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * An RFC 9457 problem document with our stable {@code code}: the one place problem bodies are rendered,
 * whether a controller, the api's exception table or the servlet container reports the error.
 *
 * @param instance the request path the problem is about, or null when the request line could not be read
 */
public record Problem(String code, String title, int status, String detail, @Nullable String instance) {

    public static final String MEDIA_TYPE = "application/problem+json";

    public byte[] toJson(JsonCodec codec) {
        Map<String, Object> problem = new LinkedHashMap<>();
        problem.put("type", "urn:agentrun:problem:" + code);
        problem.put("title", title);
        problem.put("status", status);
        problem.put("detail", detail);
        if (instance != null) {
            problem.put("instance", instance);
        }
        problem.put("code", code);
        return codec.write(problem).getBytes(StandardCharsets.UTF_8);
    }
}
