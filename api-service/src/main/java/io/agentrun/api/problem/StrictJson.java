package io.agentrun.api.problem;

import io.agentrun.model.json.JsonCodec;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;

/**
 * Reads configuration-like request bodies (admin API) strictly: an unknown field is an error, because a
 * typo such as {@code modle} must not silently fall back to a default.
 */
public final class StrictJson {

    private final ObjectReader reader;

    public StrictJson(JsonCodec codec) {
        this.reader = codec.mapper().reader().with(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    }

    /** @throws ApiProblem {@code invalid_request} naming what is wrong */
    public <T> T read(byte[] body, Class<T> type) {
        if (body.length == 0) {
            throw new ApiProblem(ErrorCode.INVALID_REQUEST, "send a JSON body");
        }
        try {
            T value = reader.forType(type).readValue(body);
            if (value == null) {
                throw new ApiProblem(ErrorCode.INVALID_REQUEST, "send a JSON object");
            }
            return value;
        } catch (JacksonException e) {
            throw new ApiProblem(ErrorCode.INVALID_REQUEST, reason(e));
        }
    }

    /** The constructor's own message when validation failed there, else Jackson's, without the noise. */
    public static String reason(JacksonException e) {
        Throwable cause = e.getCause();
        while (cause != null) {
            if (cause instanceof IllegalArgumentException) {
                return cause.getMessage();
            }
            cause = cause.getCause();
        }
        String message = e.getOriginalMessage();
        int details = message.indexOf(" (class ");
        return details > 0 ? message.substring(0, details) : message;
    }
}
