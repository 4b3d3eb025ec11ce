package io.agentrun.api.openapi;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Properties;
import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The API's description, open to everyone as the README is: {@code /v3/api-docs} (JSON, the springdoc
 * convention clients and generators look for), {@code /v3/api-docs.yaml}, and {@code /docs}, a Swagger UI page
 * whose scripts come from the swagger-ui webjar that Boot serves under {@code /webjars/}.
 */
@RestController
class OpenApiController {

    static final String JSON_PATH = "/v3/api-docs";
    static final String YAML_PATH = "/v3/api-docs.yaml";
    static final String UI_PATH = "/docs";

    private static final MediaType YAML = MediaType.parseMediaType("application/yaml");
    private static final CacheControl CACHE = CacheControl.maxAge(Duration.ofMinutes(5)).cachePublic();

    private final OpenApiDocument document = OpenApiDocument.load();
    private final byte[] page = uiPage(swaggerUiVersion());

    @GetMapping(JSON_PATH)
    ResponseEntity<byte[]> json() {
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).cacheControl(CACHE).body(document.json());
    }

    @GetMapping(YAML_PATH)
    ResponseEntity<byte[]> yaml() {
        return ResponseEntity.ok().contentType(YAML).cacheControl(CACHE).body(document.yaml());
    }

    @GetMapping(UI_PATH)
    ResponseEntity<byte[]> ui() {
        return ResponseEntity.ok().contentType(new MediaType(MediaType.TEXT_HTML, StandardCharsets.UTF_8))
                .cacheControl(CACHE).header("X-Content-Type-Options", "nosniff").body(page);
    }

    private static byte[] uiPage(String version) {
        String assets = "/webjars/swagger-ui/" + version + "/";
        return ("""
                <!doctype html>
                <html lang="en">
                <head>
                  <meta charset="utf-8">
                  <title>agentrun API</title>
                  <link rel="stylesheet" href="%1$sswagger-ui.css">
                </head>
                <body>
                  <div id="ui"></div>
                  <script src="%1$sswagger-ui-bundle.js"></script>
                  <script>SwaggerUIBundle({url: "%2$s", dom_id: "#ui", deepLinking: true});</script>
                </body>
                </html>
                """).formatted(assets, JSON_PATH).getBytes(StandardCharsets.UTF_8);
    }

    /** The webjar's version, from its Maven metadata: the page follows a dependency upgrade by itself. */
    private static String swaggerUiVersion() {
        try (InputStream in = OpenApiController.class.getResourceAsStream("/META-INF/maven/org.webjars/swagger-ui/pom.properties")) {
            if (in == null) {
                throw new IllegalStateException("the swagger-ui webjar is missing from the classpath");
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
