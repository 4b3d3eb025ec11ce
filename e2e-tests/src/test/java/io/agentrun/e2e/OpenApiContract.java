package io.agentrun.e2e;

import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.dialect.Dialects;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * {@code docs/openapi.yaml} as a checker of real exchanges. Every response the e2e suites receive from
 * {@code /api/v1/**} through {@link ApiClient} (but CORS preflights) is checked here: its status must be documented for the operation
 * (or by {@code default}), its content type listed, a JSON body valid against the schema (JSON Schema 2020-12,
 * OpenAPI 3.1 dialect), every server-sent event valid against the schema of its event name. A violation is
 * recorded, not thrown, so that it cannot be mistaken for the fault a test provokes; {@link ContractViolations}
 * fails the test that saw it.
 */
final class OpenApiContract {

    static final OpenApiContract V1 = new OpenApiContract();

    private static final String RESOURCE = "io/agentrun/api/openapi/openapi.yaml";
    private static final String LOCATION = "classpath:" + RESOURCE;
    private static final String API_PREFIX = "/api/v1/";
    private static final String PROBLEM = "/components/schemas/Problem";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final JsonNode document = readDocument();
    private final SchemaRegistry registry = SchemaRegistry.withDialect(Dialects.getOpenApi31(),
            builder -> builder.schemaRegistryConfig(SchemaRegistryConfig.builder().formatAssertionsEnabled(true).build()));
    private final List<Operation> operations = operations(document);
    private final Map<String, String> eventSchemas = eventSchemas(document);
    private final Map<String, Schema> schemas = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> seen = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();

    private OpenApiContract() {
        Runtime.getRuntime().addShutdownHook(new Thread(this::writeCoverage));
    }

    /** One documented operation: its method, its path template and the regular expression that matches it. */
    record Operation(String method, String template, Pattern pattern, JsonNode node) {

        String name() {
            return method.toUpperCase(Locale.ROOT) + " " + template;
        }
    }

    /** Checks a whole response; {@code body} is ignored for streams, whose events come through {@link #checkEvent}. */
    void check(String method, URI uri, int status, String contentType, String body) {
        String path = uri.getRawPath();
        if (path == null || !path.startsWith(API_PREFIX) || method.equals("OPTIONS")) {
            // OPTIONS is the browsers' CORS preflight, answered before any operation: not part of the contract.
            return;
        }
        String exchange = method + " " + path + " → " + status;
        Optional<Operation> operation = operation(method, path);
        if (operation.isEmpty()) {
            // A path or method the API does not have: the container's 404 or 405, still a problem.
            checkProblem(exchange, status, contentType, body);
            return;
        }
        checkDocumented(exchange, operation.get(), status, contentType, body);
    }

    /** Checks one server-sent event of a v1 stream against the schema of its event name. */
    void checkEvent(SseEvent event) {
        String pointer = eventSchemas.get(event.event());
        if (pointer == null) {
            violations.add("event '" + event.event() + "' is not in StreamEvent's oneOf");
            return;
        }
        ObjectNode node = JSON.createObjectNode();
        node.put("event", event.event());
        if (event.id() != null) {
            node.put("id", event.id());
        }
        try {
            node.set("data", JSON.readTree(event.data()));
        } catch (RuntimeException e) {
            violations.add("event '" + event.event() + "' carries data that is not JSON: " + abbreviate(event.data()));
            return;
        }
        count("event " + event.event());
        validate("event " + event.event() + " id " + event.id(), pointer, node.toString());
    }

    /** The violations recorded since the last call, emptied. */
    List<String> drainViolations() {
        List<String> drained = new ArrayList<>();
        for (String violation; (violation = violations.poll()) != null; ) {
            drained.add(violation);
        }
        return drained;
    }

    /** Every documented response, as "METHOD template status", and every event name. */
    List<String> documentedResponses() {
        List<String> all = new ArrayList<>();
        for (Operation operation : operations) {
            operation.node().get("responses").propertyNames().forEach(status -> all.add(operation.name() + " " + status));
        }
        eventSchemas.keySet().forEach(event -> all.add("event " + event));
        return all;
    }

    /** How often each documented response was seen by this JVM's checks. */
    Map<String, Long> seen() {
        return seen.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().sum()));
    }

    private void checkDocumented(String exchange, Operation operation, int status, String contentType, String body) {
        JsonNode responses = operation.node().get("responses");
        String key = responseKey(responses, status);
        if (key == null) {
            violations.add(exchange + ": status " + status + " is not documented for " + operation.name());
            return;
        }
        count(operation.name() + " " + key);
        String pointer = "/paths/" + escape(operation.template()) + "/" + operation.method() + "/responses/" + key;
        JsonNode response = responses.get(key);
        if (response.has("$ref")) {
            pointer = response.get("$ref").asString().substring(1);
            response = at(pointer);
        }
        JsonNode content = response.get("content");
        if (content == null || content.isEmpty()) {
            if (body != null && !body.isEmpty()) {
                violations.add(exchange + ": documented without a body, but one came: " + abbreviate(body));
            }
            return;
        }
        String mediaType = mediaType(contentType);
        if (mediaType == null || !content.has(mediaType)) {
            violations.add(exchange + ": content type " + contentType + " is not among " + content.propertyNames());
            return;
        }
        if (isJson(mediaType)) {
            JsonNode schema = content.get(mediaType).get("schema");
            String schemaPointer = schema.has("$ref") ? schema.get("$ref").asString().substring(1)
                    : pointer + "/content/" + escape(mediaType) + "/schema";
            validate(exchange, schemaPointer, body);
        }
    }

    private void checkProblem(String exchange, int status, String contentType, String body) {
        if (status < 400) {
            violations.add(exchange + ": no documented operation answers this, yet it succeeded");
            return;
        }
        if (!"application/problem+json".equals(mediaType(contentType))) {
            violations.add(exchange + ": an undocumented path or method answered " + contentType + ", not problem+json");
            return;
        }
        validate(exchange, PROBLEM, body);
    }

    private void validate(String what, String pointer, String json) {
        Schema schema = schemas.computeIfAbsent(pointer, this::schema);
        List<Error> errors = schema.validate(json, InputFormat.JSON);
        if (!errors.isEmpty()) {
            violations.add(what + ": body does not match #" + pointer + ": "
                    + errors.stream().map(Error::toString).limit(5).collect(Collectors.joining("; "))
                    + " — body: " + abbreviate(json));
        }
    }

    private Schema schema(String pointer) {
        Schema schema = registry.getSchema(SchemaLocation.of(LOCATION + "#" + fragment(pointer)));
        schema.initializeValidators();
        return schema;
    }

    private Optional<Operation> operation(String method, String path) {
        return operations.stream()
                .filter(op -> op.method().equalsIgnoreCase(method) && op.pattern().matcher(path).matches())
                // A literal segment wins over a parameter: fewer parameters first.
                .min(Comparator.comparingLong(op -> op.template().chars().filter(c -> c == '{').count()));
    }

    private static String responseKey(JsonNode responses, int status) {
        for (String key : List.of(Integer.toString(status), status / 100 + "XX", "default")) {
            if (responses.has(key)) {
                return key;
            }
        }
        return null;
    }

    private JsonNode at(String pointer) {
        JsonNode node = document.at(pointer);
        if (node.isMissingNode()) {
            throw new IllegalStateException("the document has nothing at #" + pointer);
        }
        return node;
    }

    private void count(String key) {
        seen.computeIfAbsent(key, k -> new LongAdder()).increment();
    }

    /** Writes what the suites exercised, and what they never did, beside the reports. */
    private void writeCoverage() {
        Map<String, Long> counts = seen();
        StringBuilder out = new StringBuilder("# documented response or event — responses checked in this JVM\n");
        for (String documented : new java.util.TreeSet<>(documentedResponses())) {
            out.append(documented).append(" — ").append(counts.getOrDefault(documented, 0L)).append('\n');
        }
        try {
            Path target = Path.of("target");
            if (Files.isDirectory(target)) {
                Files.writeString(target.resolve("contract-coverage.txt"), out, StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            System.err.println("could not write the contract coverage: " + e);
        }
    }

    private static JsonNode readDocument() {
        try (InputStream in = OpenApiContract.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is not on the test classpath (api-service packages docs/openapi.yaml)");
            }
            return YAMLMapper.builder().build().readTree(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Operation> operations(JsonNode document) {
        List<Operation> operations = new ArrayList<>();
        document.get("paths").properties().forEach(path -> path.getValue().properties().forEach(entry -> {
            if (List.of("get", "put", "post", "delete", "patch", "head", "options").contains(entry.getKey())) {
                String regex = Pattern.quote(path.getKey()).replaceAll("\\{[^}/]+}", "\\\\E[^/]+\\\\Q");
                operations.add(new Operation(entry.getKey(), path.getKey(), Pattern.compile(regex), entry.getValue()));
            }
        }));
        return List.copyOf(operations);
    }

    /** Event name → pointer to its schema, from {@code StreamEvent}'s {@code oneOf} and each branch's {@code event} const. */
    private static Map<String, String> eventSchemas(JsonNode document) {
        Map<String, String> byName = new TreeMap<>();
        for (JsonNode branch : document.at("/components/schemas/StreamEvent/oneOf")) {
            String pointer = branch.get("$ref").asString().substring(1);
            byName.put(document.at(pointer + "/properties/event/const").asString(), pointer);
        }
        if (byName.isEmpty()) {
            throw new IllegalStateException("the document's StreamEvent has no oneOf branches");
        }
        return Map.copyOf(byName);
    }

    private static String mediaType(String contentType) {
        if (contentType == null || contentType.isBlank()) {
            return null;
        }
        int semicolon = contentType.indexOf(';');
        return (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim().toLowerCase(Locale.ROOT);
    }

    private static boolean isJson(String mediaType) {
        return mediaType.equals("application/json") || mediaType.endsWith("+json");
    }

    /** A JSON pointer token (RFC 6901). */
    private static String escape(String token) {
        return token.replace("~", "~0").replace("/", "~1");
    }

    /** A JSON pointer as a URI fragment: what is not allowed in one is percent-encoded. */
    private static String fragment(String pointer) {
        StringBuilder out = new StringBuilder();
        for (byte b : pointer.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if (Character.isLetterOrDigit(c) && c < 0x80 || "/~-._!$&'()*+,;=:@".indexOf(c) >= 0) {
                out.append(c);
            } else {
                out.append('%').append(String.format("%02X", b & 0xff));
            }
        }
        return out.toString();
    }

    private static String abbreviate(String text) {
        return text.length() <= 600 ? text : text.substring(0, 600) + "…";
    }
}
