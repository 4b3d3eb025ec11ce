package io.agentrun.api.openapi;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * {@code docs/openapi.yaml} as the build packaged it, in both forms it is served in. The YAML is the source; the
 * JSON is the same tree, converted once at start so that a document that does not parse stops the node.
 */
final class OpenApiDocument {

    static final String RESOURCE = "/io/agentrun/api/openapi/openapi.yaml";

    private final byte[] yaml;
    private final byte[] json;

    private OpenApiDocument(byte[] yaml, byte[] json) {
        this.yaml = yaml;
        this.json = json;
    }

    static OpenApiDocument load() {
        byte[] yaml = read();
        JsonNode tree = YAMLMapper.builder().build().readTree(new String(yaml, StandardCharsets.UTF_8));
        return new OpenApiDocument(yaml, JsonMapper.builder().build().writeValueAsBytes(tree));
    }

    byte[] yaml() {
        return yaml.clone();
    }

    byte[] json() {
        return json.clone();
    }

    private static byte[] read() {
        try (InputStream in = OpenApiDocument.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the classpath (the build copies docs/openapi.yaml)");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
