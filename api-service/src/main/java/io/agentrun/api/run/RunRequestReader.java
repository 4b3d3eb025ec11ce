package io.agentrun.api.run;

import io.agentrun.api.ApiSettings;
import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.api.problem.ResponseSchemaCheck;
import io.agentrun.api.problem.StrictJson;
import io.agentrun.model.command.ResponseFormat;
import io.agentrun.model.command.RunInput;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.jsonschema.AnswerSchemas;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.http.MediaType;
import tools.jackson.databind.JsonNode;

/**
 * Reads and validates the body of run and stream requests, completely, before anything else happens:
 * {@code query} (string, required), {@code images}, {@code documents}, {@code audios}, {@code contexts}
 * (arrays of strings), {@code metadata} (object) and {@code response_format} (a JSON Schema the answer must match,
 * checked here: 400 {@code invalid_response_format} when it is not a usable 2020-12 schema within the limits). Unknown fields are refused, so a typo such as
 * {@code qeury} is an error rather than a silently empty run; so are bytes that are not UTF-8 and repeated
 * keys ({@link StrictJson}).
 */
public final class RunRequestReader {

    private static final Set<String> LISTS = Set.of("images", "documents", "audios", "contexts");
    private static final Set<String> FIELDS = Set.of("query", "images", "documents", "audios", "contexts", "metadata",
            "response_format");
    private static final Set<String> RESPONSE_FORMAT_FIELDS = Set.of("type", "name", "schema");

    private final JsonCodec codec;
    private final StrictJson json;
    private final ApiSettings settings;
    private final ResponseSchemaCheck schemas;

    public RunRequestReader(JsonCodec codec, ApiSettings settings) {
        this(codec, settings, new ResponseSchemaCheck(new AnswerSchemas(settings.maxResponseSchemaBytes(), settings.maxResponseSchemaDepth())));
    }

    public RunRequestReader(JsonCodec codec, ApiSettings settings, ResponseSchemaCheck schemas) {
        this.codec = codec;
        this.json = new StrictJson(codec);
        this.settings = settings;
        this.schemas = schemas;
    }

    public RunRequest read(HttpServletRequest request) {
        requireJson(request.getContentType());
        return parse(body(request));
    }

    private static void requireJson(String contentType) {
        MediaType type;
        try {
            type = contentType == null ? null : MediaType.parseMediaType(contentType);
        } catch (IllegalArgumentException e) {
            type = null;
        }
        if (type == null || !(type.isCompatibleWith(MediaType.APPLICATION_JSON)
                || (type.getType().equals("application") && type.getSubtype().endsWith("+json")))) {
            throw new ApiProblem(ErrorCode.UNSUPPORTED_MEDIA_TYPE, "send the request body as application/json");
        }
    }

    private byte[] body(HttpServletRequest request) {
        long limit = settings.maxBodySize().toBytes();
        if (request.getContentLengthLong() > limit) {
            throw tooLarge(limit);
        }
        try (InputStream in = request.getInputStream()) {
            byte[] bytes = in.readNBytes((int) Math.min(limit + 1, Integer.MAX_VALUE - 8));
            if (bytes.length > limit) {
                throw tooLarge(limit);
            }
            return bytes;
        } catch (IOException e) {
            throw new ApiProblem(ErrorCode.INVALID_REQUEST, "the request body could not be read");
        }
    }

    private static ApiProblem tooLarge(long limit) {
        return new ApiProblem(ErrorCode.PAYLOAD_TOO_LARGE, "the request body exceeds " + limit + " bytes");
    }

    RunRequest parse(byte[] body) {
        JsonNode root = json.tree(body);
        if (root == null || !root.isObject()) {
            throw invalid("the body must be a JSON object");
        }
        for (String name : root.propertyNames()) {
            if (!FIELDS.contains(name)) {
                throw invalid("unknown field '" + printable(name) + "'; expected one of query, images, documents, audios, contexts, metadata, response_format");
            }
        }
        JsonNode query = root.get("query");
        if (query == null || query.isNull()) {
            throw invalid("'query' is required");
        }
        if (!query.isString()) {
            throw invalid("'query' must be a string");
        }
        if (query.asString().isBlank()) {
            throw invalid("'query' must not be blank");
        }
        Map<String, List<String>> lists = new LinkedHashMap<>();
        for (String name : LISTS) {
            lists.put(name, stringList(root.get(name), name));
        }
        RunInput input = new RunInput(query.asString(), lists.get("images"), lists.get("documents"), lists.get("audios"),
                lists.get("contexts"), responseFormat(root.get("response_format")));
        return new RunRequest(input, metadata(root.get("metadata")));
    }

    /** {@code {"type":"json_schema","name":…,"schema":{…}}}: its schema checked now, before the run exists. */
    private @Nullable ResponseFormat responseFormat(@Nullable JsonNode node) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isObject()) {
            throw invalid("'response_format' must be a JSON object");
        }
        for (String name : node.propertyNames()) {
            if (!RESPONSE_FORMAT_FIELDS.contains(name)) {
                throw invalid("unknown field 'response_format." + printable(name) + "'; expected one of type, name, schema");
            }
        }
        JsonNode type = node.get("type");
        if (type == null || !type.isString() || !type.asString().equals(ResponseFormat.JSON_SCHEMA)) {
            throw invalid("'response_format.type' must be \"json_schema\"");
        }
        JsonNode name = node.get("name");
        if (name != null && !name.isNull() && !name.isString()) {
            throw invalid("'response_format.name' must be a string");
        }
        JsonNode schema = node.get("schema");
        if (schema == null || schema.isNull()) {
            throw invalid("'response_format.schema' is required");
        }
        schemas.require(schema);
        try {
            return ResponseFormat.jsonSchema(name == null || name.isNull() ? null : name.asString(), schema);
        } catch (IllegalArgumentException e) {
            throw invalid(e.getMessage());
        }
    }

    private List<String> stringList(JsonNode node, String name) {
        if (node == null || node.isNull()) {
            return List.of();
        }
        if (!node.isArray()) {
            throw invalid("'" + name + "' must be an array of strings");
        }
        if (node.size() > settings.maxListItems()) {
            throw invalid("'" + name + "' has " + node.size() + " entries; at most " + settings.maxListItems() + " are allowed");
        }
        List<String> values = new ArrayList<>(node.size());
        for (JsonNode item : node) {
            if (!item.isString() || item.asString().isBlank()) {
                throw invalid("'" + name + "' must contain only non-empty strings");
            }
            if (item.asString().length() > settings.maxItemLength()) {
                throw invalid("an entry of '" + name + "' is longer than " + settings.maxItemLength() + " characters");
            }
            values.add(item.asString());
        }
        return values;
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> metadata(JsonNode node) {
        if (node == null || node.isNull()) {
            return Map.of();
        }
        if (!node.isObject()) {
            throw invalid("'metadata' must be a JSON object");
        }
        return codec.mapper().convertValue(node, Map.class);
    }

    private static ApiProblem invalid(String detail) {
        return new ApiProblem(ErrorCode.INVALID_REQUEST, detail);
    }

    private static String printable(String name) {
        String clean = name.replaceAll("\\p{Cntrl}", "?");
        return clean.length() > 40 ? clean.substring(0, 40) + "…" : clean;
    }
}
