package io.agentrun.api.problem;

import io.agentrun.model.json.JsonCodec;
import java.io.IOException;
import java.io.InputStream;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.HttpOutputMessage;
import org.springframework.http.MediaType;
import org.springframework.http.converter.AbstractHttpMessageConverter;
import tools.jackson.databind.JsonNode;

/**
 * Binds {@code @RequestBody} wire types ({@code io.agentrun.model} records) and JSON trees through {@link StrictJson},
 * so that a handler never parses a body itself and every body obeys the same rules: well-formed UTF-8, no key twice
 * in an object, no unknown field in a typed read, the records' own checks. A body that breaks one is the same
 * {@code invalid_request} problem the run endpoints give; a body that is not JSON by its Content-Type finds no
 * converter (415 {@code unsupported_media_type}). Read-only: responses are written by the handlers with the codec.
 * Other types (none today) are left to Spring's own Jackson converter.
 */
final class StrictJsonBodies extends AbstractHttpMessageConverter<Object> {

    private static final String WIRE_TYPES = "io.agentrun.model.";

    private final StrictJson json;

    StrictJsonBodies(JsonCodec codec) {
        super(MediaType.APPLICATION_JSON, new MediaType("application", "*+json"));
        this.json = new StrictJson(codec);
    }

    @Override
    protected boolean supports(Class<?> type) {
        return type.getName().startsWith(WIRE_TYPES) || JsonNode.class.isAssignableFrom(type);
    }

    @Override
    protected boolean canWrite(MediaType mediaType) {
        return false;
    }

    @Override
    protected Object readInternal(Class<?> type, HttpInputMessage input) throws IOException {
        byte[] body;
        try (InputStream in = input.getBody()) {
            body = in.readAllBytes();
        }
        return JsonNode.class.isAssignableFrom(type) ? json.tree(body) : json.read(body, type);
    }

    @Override
    protected void writeInternal(Object value, HttpOutputMessage output) {
        throw new UnsupportedOperationException("request bodies only");
    }
}
