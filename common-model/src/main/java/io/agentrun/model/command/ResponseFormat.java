package io.agentrun.model.command;

import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * The shape a run's answer must have: {@code {"type":"json_schema","name":…,"schema":{…}}}, a JSON Schema (2020-12)
 * the final answer is validated against. The api checks the schema before the run starts (a valid 2020-12 schema,
 * within its size and depth limits); the worker asks the model for JSON in that shape and validates what it answers.
 *
 * @param type   {@code json_schema}, the only kind there is
 * @param name   what the shape is called (providers want one): 1–64 letters, digits, {@code _} or {@code -};
 *               {@code response} when absent
 * @param schema the JSON Schema, an object
 */
public record ResponseFormat(String type, String name, JsonNode schema) {

    public static final String JSON_SCHEMA = "json_schema";
    public static final String DEFAULT_NAME = "response";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    public ResponseFormat {
        if (!JSON_SCHEMA.equals(type)) {
            throw new IllegalArgumentException("'response_format.type' must be \"json_schema\"");
        }
        name = name == null ? DEFAULT_NAME : name;
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("'response_format.name' must be 1–64 letters, digits, '_' or '-'");
        }
        Objects.requireNonNull(schema, "schema");
        if (!schema.isObject()) {
            throw new IllegalArgumentException("'response_format.schema' must be a JSON object");
        }
        schema = schema.deepCopy();
    }

    /** A JSON Schema answer named {@code name} ({@code null}: {@value #DEFAULT_NAME}). */
    public static ResponseFormat jsonSchema(@Nullable String name, JsonNode schema) {
        return new ResponseFormat(JSON_SCHEMA, name, schema);
    }

    /** The schema itself (a copy: JSON trees are mutable). */
    @Override
    public JsonNode schema() {
        return schema.deepCopy();
    }
}
