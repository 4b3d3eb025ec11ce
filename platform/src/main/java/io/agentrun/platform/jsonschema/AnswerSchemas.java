package io.agentrun.platform.jsonschema;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaException;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * JSON Schema 2020-12 with networknt's validator, which never fetches a remote {@code $ref} (its default loader
 * resolves only the drafts' own meta-schemas, from its jar): a schema names nothing outside itself.
 */
public final class AnswerSchemas {

    /** At most this many problems are reported for one answer: enough to fix it, short enough for a model's retry. */
    static final int MAX_PROBLEMS = 10;
    /** Default of {@code agentrun.api.max-response-schema-bytes}. */
    public static final int DEFAULT_MAX_BYTES = 16_384;
    /** Default of {@code agentrun.api.max-response-schema-depth}. */
    public static final int DEFAULT_MAX_DEPTH = 32;
    private static final String META_SCHEMA = "https://json-schema.org/draft/2020-12/schema";

    private final SchemaRegistry registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    private final Schema metaSchema = registry.getSchema(SchemaLocation.of(META_SCHEMA));
    private final int maxBytes;
    private final int maxDepth;

    /**
     * @param maxBytes the largest schema accepted, serialized as JSON
     * @param maxDepth the deepest nesting of objects and arrays accepted in a schema
     */
    public AnswerSchemas(int maxBytes, int maxDepth) {
        this.maxBytes = maxBytes;
        this.maxDepth = maxDepth;
    }

    /**
     * Whether {@code schema} may shape a run's answer: an object, within the size and depth limits, valid against the
     * 2020-12 meta-schema, and usable (every {@code $ref} resolves).
     *
     * @throws InvalidSchemaException naming what is wrong
     */
    public void check(JsonNode schema) {
        if (!schema.isObject()) {
            throw new InvalidSchemaException("the schema must be a JSON object");
        }
        int bytes = schema.toString().getBytes(StandardCharsets.UTF_8).length;
        if (bytes > maxBytes) {
            throw new InvalidSchemaException("the schema is " + bytes + " bytes; at most " + maxBytes + " are allowed");
        }
        if (depth(schema) > maxDepth) {
            throw new InvalidSchemaException("the schema nests objects and arrays deeper than " + maxDepth + " levels");
        }
        List<String> problems = describe(metaSchema.validate(schema));
        if (!problems.isEmpty()) {
            throw new InvalidSchemaException("the schema is not a valid JSON Schema 2020-12: " + String.join("; ", problems));
        }
        refuseOutsideReferences(schema);
        compile(schema);
    }

    /**
     * A {@code $ref} to another document is refused, saying so: nothing is fetched, and the validator's own failure for
     * it read as if the URL had been tried (issue 46). A reference inside the schema ({@code #…}, or an {@code $id} the
     * schema declares) is fine.
     */
    private static void refuseOutsideReferences(JsonNode schema) {
        java.util.Set<String> ids = new java.util.HashSet<>();
        List<String> refs = new java.util.ArrayList<>();
        Deque<JsonNode> pending = new ArrayDeque<>();
        pending.push(schema);
        while (!pending.isEmpty()) {
            JsonNode node = pending.pop();
            if (node.isObject()) {
                if (node.get("$id") != null && node.get("$id").isString()) {
                    ids.add(withoutFragment(node.get("$id").asString()));
                }
                if (node.get("$ref") != null && node.get("$ref").isString()) {
                    refs.add(node.get("$ref").asString());
                }
            }
            node.forEach(pending::push);
        }
        for (String ref : refs) {
            if (!ref.startsWith("#") && !ids.contains(withoutFragment(ref))) {
                String shown = ref.length() > 200 ? ref.substring(0, 200) + "…" : ref;
                throw new InvalidSchemaException("the schema refers to '" + shown + "', outside itself: references to other "
                        + "documents are not followed (nothing is fetched); put the definition under \"$defs\" and refer to it "
                        + "as \"#/$defs/<name>\"");
            }
        }
    }

    private static String withoutFragment(String uri) {
        int hash = uri.indexOf('#');
        return hash < 0 ? uri : uri.substring(0, hash);
    }

    /** The validator's message without the Java class names it may carry (a problem's detail is for people). */
    static String readable(String message) {
        return String.valueOf(message).replaceAll("\\b(?:[a-z_][a-z0-9_]*\\.)+[A-Z]\\w*(?:Exception|Error)\\b:?\\s*", "").strip();
    }

    /**
     * The schema, ready to validate answers.
     *
     * @throws InvalidSchemaException when it cannot be used (e.g. a {@code $ref} that resolves to nothing)
     */
    public AnswerSchema compile(JsonNode schema) {
        try {
            Schema compiled = registry.getSchema(schema);
            compiled.initializeValidators(); // every $ref resolved now, not when the first answer comes
            return new AnswerSchema(compiled);
        } catch (SchemaException e) {
            throw new InvalidSchemaException("the schema cannot be used: " + readable(e.getMessage()));
        }
    }

    /** A compiled schema. */
    public static final class AnswerSchema {
        private final Schema schema;

        private AnswerSchema(Schema schema) {
            this.schema = schema;
        }

        /**
         * What is wrong with {@code answer} (empty: it matches), at most {@value AnswerSchemas#MAX_PROBLEMS}, each naming where.
         *
         * @throws InvalidSchemaException when the schema turns out unusable while validating
         */
        public List<String> problems(JsonNode answer) {
            try {
                return describe(schema.validate(answer));
            } catch (SchemaException e) {
                throw new InvalidSchemaException("the schema cannot be used: " + readable(e.getMessage()));
            }
        }
    }

    private static List<String> describe(List<Error> errors) {
        return errors.stream().limit(MAX_PROBLEMS).map(AnswerSchemas::describe).toList();
    }

    private static String describe(Error error) {
        String where = error.getInstanceLocation().toString();
        return (where.isEmpty() ? "" : where + ": ") + error.getMessage();
    }

    /** Levels of nested objects and arrays, without recursion (the tree may be deep: that is what is measured). */
    static int depth(JsonNode root) {
        int deepest = 0;
        Deque<Map.Entry<JsonNode, Integer>> pending = new ArrayDeque<>();
        pending.push(Map.entry(root, 1));
        while (!pending.isEmpty()) {
            Map.Entry<JsonNode, Integer> next = pending.pop();
            if (next.getKey().isContainer()) {
                deepest = Math.max(deepest, next.getValue());
                for (JsonNode child : next.getKey()) {
                    pending.push(Map.entry(child, next.getValue() + 1));
                }
            }
        }
        return deepest;
    }
}
