package io.agentrun.worker.provider;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A JSON value a JSON Schema (2020-12) accepts, built from the schema alone: what the scripted model answers a run that
 * asks for an answer in a schema and whose query scripts none ({@code /json}), so a first structured-output call works
 * on the local stack for whatever schema it brings. The value is the schema's own word where it has one ({@code const},
 * {@code default}, the first of {@code examples} or {@code enum}), else a placeholder of its type as OpenAPI tools show
 * one ({@code "string"}, {@code 0}, {@code true}, an object with every property, an array of one item), moved into the
 * schema's bounds (lengths, ranges, {@code multipleOf}, item and property counts). Local {@code $ref}s are followed;
 * {@code allOf} is merged, {@code anyOf}/{@code oneOf} take their first branch.
 *
 * <p>Not made to match: a {@code pattern}, {@code not}, conditionals ({@code if}/{@code then}), {@code dependentSchemas};
 * a schema that needs them gets a value that may fail it (and the run then fails {@code output_schema_mismatch} as it
 * would with a model's wrong answer), or gives the value in {@code examples} or {@code default}, or scripts it with
 * {@code /json}.
 */
final class SchemaSample {

    /** Past this depth only required properties are filled: a recursive schema (a tree) ends. */
    private static final int OPTIONAL_DEPTH = 6;
    /** Past this depth a value is {@code null}: a schema whose required properties recurse forever has no finite value. */
    private static final int MAX_DEPTH = 64;
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final Map<String, String> FORMATS = Map.ofEntries(
            Map.entry("date-time", "2026-01-01T00:00:00Z"), Map.entry("date", "2026-01-01"), Map.entry("time", "12:00:00Z"),
            Map.entry("duration", "PT1H"), Map.entry("email", "user@example.com"), Map.entry("idn-email", "user@example.com"),
            Map.entry("hostname", "example.com"), Map.entry("idn-hostname", "example.com"), Map.entry("ipv4", "192.0.2.1"),
            Map.entry("ipv6", "2001:db8::1"), Map.entry("uri", "https://example.com/"), Map.entry("iri", "https://example.com/"),
            Map.entry("uri-reference", "/"), Map.entry("iri-reference", "/"), Map.entry("uri-template", "/{id}"),
            Map.entry("uuid", "00000000-0000-4000-8000-000000000000"), Map.entry("json-pointer", "/"),
            Map.entry("relative-json-pointer", "0"), Map.entry("regex", ".*"));

    private final JsonNode root;

    private SchemaSample(JsonNode root) {
        this.root = root;
    }

    /** A value {@code schema} accepts, as far as the rules above go. */
    static JsonNode of(JsonNode schema) {
        return new SchemaSample(schema).sample(schema, 0);
    }

    private JsonNode sample(JsonNode schema, int depth) {
        if (depth > MAX_DEPTH || !schema.isObject()) {
            return schema.isBoolean() && schema.asBoolean() && depth <= MAX_DEPTH ? NODES.stringNode("string") : NODES.nullNode();
        }
        JsonNode given = givenValue(schema);
        if (given != null) {
            return given.deepCopy();
        }
        JsonNode ref = schema.get("$ref");
        if (ref != null && ref.isString()) {
            JsonNode target = resolve(ref.asString());
            return target == null ? NODES.nullNode() : sample(target, depth + 1);
        }
        JsonNode allOf = schema.get("allOf");
        if (allOf != null && allOf.isArray() && !allOf.isEmpty()) {
            return merged(schema, allOf, depth);
        }
        for (String firstOf : new String[] {"anyOf", "oneOf"}) {
            JsonNode branches = schema.get(firstOf);
            if (branches != null && branches.isArray() && !branches.isEmpty()) {
                return sample(branches.get(0), depth + 1);
            }
        }
        return switch (type(schema)) {
            case "object" -> object(schema, depth);
            case "array" -> array(schema, depth);
            case "integer" -> number(schema, true);
            case "number" -> number(schema, false);
            case "boolean" -> NODES.booleanNode(true);
            case "null" -> NODES.nullNode();
            default -> string(schema);
        };
    }

    /** What the schema says a value is, or may be: {@code const}, {@code default}, the first example, the first of {@code enum}. */
    private static @Nullable JsonNode givenValue(JsonNode schema) {
        if (schema.has("const")) {
            return schema.get("const");
        }
        if (schema.has("default")) {
            return schema.get("default");
        }
        for (String list : new String[] {"examples", "enum"}) {
            JsonNode values = schema.get(list);
            if (values != null && values.isArray() && !values.isEmpty()) {
                return values.get(0);
            }
        }
        return null;
    }

    /** A reference inside the schema ({@code #}, {@code #/$defs/x}); null for anything else. */
    private @Nullable JsonNode resolve(String ref) {
        if (!ref.startsWith("#")) {
            return null;
        }
        JsonNode target = ref.length() == 1 ? root : root.at(ref.substring(1));
        return target.isMissingNode() ? null : target;
    }

    /** {@code allOf}'s branches and the schema's own keywords together: objects merged, otherwise the first branch's value. */
    private JsonNode merged(JsonNode schema, JsonNode allOf, int depth) {
        ObjectNode own = ((ObjectNode) schema).deepCopy();
        own.remove("allOf");
        JsonNode result = own.has("type") || own.has("properties") || own.has("required") ? sample(own, depth) : null;
        for (JsonNode branch : allOf) {
            JsonNode value = sample(branch, depth + 1);
            if (result == null || result.isNull()) {
                result = value;
            } else if (result.isObject() && value.isObject()) {
                ((ObjectNode) result).setAll((ObjectNode) value);
            }
        }
        return result == null ? NODES.nullNode() : result;
    }

    /** The declared type (the first that is not {@code null} of a list), else the one its keywords imply. */
    private static String type(JsonNode schema) {
        JsonNode type = schema.get("type");
        if (type != null && type.isString()) {
            return type.asString();
        }
        if (type != null && type.isArray() && !type.isEmpty()) {
            for (JsonNode each : type) {
                if (!each.asString().equals("null")) {
                    return each.asString();
                }
            }
            return "null";
        }
        if (schema.has("properties") || schema.has("required") || schema.has("additionalProperties")) {
            return "object";
        }
        if (schema.has("items") || schema.has("prefixItems")) {
            return "array";
        }
        if (schema.has("minimum") || schema.has("maximum") || schema.has("exclusiveMinimum") || schema.has("exclusiveMaximum")
                || schema.has("multipleOf")) {
            return "number";
        }
        return "string";
    }

    private JsonNode object(JsonNode schema, int depth) {
        ObjectNode object = NODES.objectNode();
        JsonNode properties = schema.path("properties");
        JsonNode required = schema.path("required");
        for (Map.Entry<String, JsonNode> property : properties.properties()) {
            if (depth < OPTIONAL_DEPTH || contains(required, property.getKey())) {
                object.set(property.getKey(), sample(property.getValue(), depth + 1));
            }
        }
        JsonNode additional = schema.path("additionalProperties");
        JsonNode other = additional.isObject() ? additional : NODES.objectNode().put("type", "string");
        for (JsonNode name : required) {
            if (!object.has(name.asString())) {
                object.set(name.asString(), sample(other, depth + 1));
            }
        }
        for (int n = 1; object.size() < schema.path("minProperties").asInt(0) && !additional.isBoolean(); n++) {
            object.set("property" + n, sample(other, depth + 1));
        }
        return object;
    }

    private static boolean contains(JsonNode names, String name) {
        for (JsonNode each : names) {
            if (each.asString().equals(name)) {
                return true;
            }
        }
        return false;
    }

    private JsonNode array(JsonNode schema, int depth) {
        ArrayNode array = NODES.arrayNode();
        schema.path("prefixItems").forEach(item -> array.add(sample(item, depth + 1)));
        JsonNode items = schema.get("items");
        boolean more = items == null || !(items.isBoolean() && !items.asBoolean());
        int max = schema.path("maxItems").asInt(Integer.MAX_VALUE);
        int wanted = Math.max(schema.path("minItems").asInt(0), items != null && items.isObject() ? 1 : 0);
        if (schema.get("contains") instanceof JsonNode contains && contains.isObject() && array.size() < max) {
            array.add(sample(contains, depth + 1));
        }
        while (more && array.size() < Math.min(wanted, max)) {
            JsonNode item = items != null && items.isObject() ? sample(items, depth + 1) : NODES.stringNode("string");
            array.add(schema.path("uniqueItems").asBoolean(false) ? distinct(item, array.size()) : item);
        }
        return array;
    }

    /** The {@code n}th item of an array whose items must differ: a string or number made different, anything else as it is. */
    private static JsonNode distinct(JsonNode item, int n) {
        if (n == 0) {
            return item;
        }
        if (item.isString()) {
            return NODES.stringNode(item.asString() + n);
        }
        return item.isIntegralNumber() ? NODES.numberNode(item.longValue() + n)
                : item.isNumber() ? NODES.numberNode(item.decimalValue().add(BigDecimal.valueOf(n))) : item;
    }

    private static JsonNode number(JsonNode schema, boolean integer) {
        BigDecimal step = schema.path("multipleOf").isNumber() ? schema.get("multipleOf").decimalValue() : null;
        BigDecimal unit = step != null ? step : BigDecimal.ONE;
        BigDecimal value = BigDecimal.ZERO;
        if (schema.path("minimum").isNumber()) {
            value = value.max(schema.get("minimum").decimalValue());
        }
        if (schema.path("exclusiveMinimum").isNumber() && value.compareTo(schema.get("exclusiveMinimum").decimalValue()) <= 0) {
            value = schema.get("exclusiveMinimum").decimalValue().add(unit);
        }
        if (schema.path("maximum").isNumber() && value.compareTo(schema.get("maximum").decimalValue()) > 0) {
            value = schema.get("maximum").decimalValue();
        }
        if (schema.path("exclusiveMaximum").isNumber() && value.compareTo(schema.get("exclusiveMaximum").decimalValue()) >= 0) {
            value = schema.get("exclusiveMaximum").decimalValue().subtract(unit);
        }
        if (step != null && step.signum() > 0) {
            value = value.divide(step, 0, RoundingMode.CEILING).multiply(step);
        }
        if (integer) {
            value = value.setScale(0, RoundingMode.CEILING);
        }
        BigDecimal plain = value.stripTrailingZeros();
        return plain.scale() <= 0 ? NODES.numberNode(plain.longValueExact()) : NODES.numberNode(plain);
    }

    private static JsonNode string(JsonNode schema) {
        String value = FORMATS.getOrDefault(schema.path("format").asString(""), "string");
        int min = schema.path("minLength").asInt(0);
        StringBuilder padded = new StringBuilder(value);
        while (padded.codePointCount(0, padded.length()) < min) {
            padded.append('x');
        }
        value = padded.toString();
        int max = schema.path("maxLength").asInt(Integer.MAX_VALUE);
        if (value.codePointCount(0, value.length()) > max) {
            value = value.substring(0, value.offsetByCodePoints(0, max));
        }
        return NODES.stringNode(value);
    }
}
