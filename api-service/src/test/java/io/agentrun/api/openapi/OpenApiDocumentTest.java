package io.agentrun.api.openapi;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.api.caller.PublicSurface;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.model.event.EventType;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.type.filter.AnnotationTypeFilter;
import org.springframework.util.ClassUtils;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The OpenAPI document against the code it describes, without starting anything: an independent OpenAPI parser
 * reads it without complaint, it has exactly the api's {@code /api/v1} handlers, every error code and every
 * event type. The e2e suites check real responses against it ({@code OpenApiContract}).
 */
class OpenApiDocumentTest {

    private final OpenApiDocument served = OpenApiDocument.load();
    private final JsonNode document = YAMLMapper.builder().build()
            .readTree(new String(served.yaml(), StandardCharsets.UTF_8));

    @Test
    void isOpenApi31ThatAnIndependentParserReadsWithoutMessages() {
        ParseOptions options = new ParseOptions();
        options.setResolve(true);
        SwaggerParseResult result = new OpenAPIV3Parser().readContents(new String(served.yaml(), StandardCharsets.UTF_8), null, options);

        assertThat(result.getMessages()).isEmpty();
        assertThat(result.getOpenAPI().getOpenapi()).startsWith("3.1.");
        assertThat(result.getOpenAPI().getPaths()).isNotEmpty();
    }

    @Test
    void documentsExactlyTheV1Handlers() {
        assertThat(documentedOperations()).isEqualTo(v1Handlers(method -> true));
    }

    @Test
    void problemCodesAreTheApisErrorCodes() {
        Set<String> documented = values(document.at("/components/schemas/Problem/properties/code/enum"));
        Set<String> codes = Arrays.stream(ErrorCode.values()).map(ErrorCode::code).collect(Collectors.toCollection(TreeSet::new));

        assertThat(documented).isEqualTo(codes);
    }

    @Test
    void everyEventTypeHasAStreamEventSchema() {
        Set<String> documented = new TreeSet<>();
        for (JsonNode branch : document.at("/components/schemas/StreamEvent/oneOf")) {
            String pointer = branch.get("$ref").asString().substring(1);
            documented.add(document.at(pointer + "/properties/event/const").asString());
        }

        assertThat(documented).containsAll(Arrays.stream(EventType.values()).map(EventType::wireName).toList());
    }

    @Test
    void everyStreamResponseNamesTheEventSchema() {
        List<JsonNode> streams = document.findValues("text/event-stream");

        assertThat(streams).isNotEmpty().allSatisfy(stream ->
                assertThat(stream.at("/x-event-schema/$ref").asString()).isEqualTo("#/components/schemas/StreamEvent"));
    }

    /**
     * A publishable key is documented for exactly the handlers marked {@link PublicSurface} (every other one answers it
     * 403), and never with {@code x-project-id}: it names its project itself, so a call without the header conforms.
     * Secret keys and session tokens always come with {@code x-project-id}.
     */
    @Test
    void documentsPublishableKeysForThePublicSurfaceWithoutAProjectHeader() {
        Set<String> publishable = new TreeSet<>();
        document.get("paths").properties().forEach(path -> path.getValue().properties().forEach(operation -> {
            if (!Set.of("get", "put", "post", "delete", "patch").contains(operation.getKey())) {
                return;
            }
            JsonNode security = operation.getValue().has("security") ? operation.getValue().get("security") : document.get("security");
            String name = operation.getKey().toUpperCase(Locale.ROOT) + " " + path.getKey();
            for (JsonNode requirement : security) {
                Set<String> schemes = new TreeSet<>(requirement.propertyNames());
                if (schemes.contains("publishableKey")) {
                    publishable.add(name);
                    assertThat(schemes).as(name + ": a publishable key alone").containsExactly("publishableKey");
                } else {
                    assertThat(schemes).as(name + ": a secret key or session with its project").contains("project").hasSize(2);
                }
            }
        }));

        assertThat(publishable).isEqualTo(v1Handlers(method -> method.isAnnotationPresent(PublicSurface.class)));
    }

    /**
     * Every component is referenced: Redocly's {@code no-unused-components} is off (redocly.yaml) because it does not
     * look into extensions, and {@code StreamEvent} is referenced only from {@code x-event-schema}.
     */
    @Test
    void everyComponentIsReferenced() {
        Set<String> references = new TreeSet<>();
        document.findValues("$ref").forEach(reference -> references.add(reference.asString()));
        document.findValues("security").forEach(security -> security.forEach(requirement ->
                requirement.propertyNames().forEach(scheme -> references.add("#/components/securitySchemes/" + scheme))));
        List<String> components = new ArrayList<>();
        document.get("components").properties().forEach(kind -> kind.getValue().propertyNames()
                .forEach(name -> components.add("#/components/" + kind.getKey() + "/" + name)));

        assertThat(components).isNotEmpty().allSatisfy(component -> assertThat(references).as("references").contains(component));
    }

    @Test
    void servesTheSameTreeAsJsonAndYaml() {
        JsonNode fromJson = JsonMapper.builder().build().readTree(served.json());

        assertThat(fromJson).isEqualTo(document);
    }

    private Set<String> documentedOperations() {
        Set<String> operations = new TreeSet<>();
        document.get("paths").properties().forEach(path -> path.getValue().propertyNames().stream()
                .filter(name -> Set.of("get", "put", "post", "delete", "patch").contains(name))
                .forEach(method -> operations.add(method.toUpperCase(Locale.ROOT) + " " + path.getKey())));
        return operations;
    }

    /** Every handler method of the api's controllers whose path starts with /api/v1 and that {@code which} takes, as "METHOD path". */
    private static Set<String> v1Handlers(Predicate<Method> which) {
        ClassPathScanningCandidateComponentProvider scanner = new ClassPathScanningCandidateComponentProvider(false);
        scanner.addIncludeFilter(new AnnotationTypeFilter(RestController.class));
        Set<String> handlers = new TreeSet<>();
        for (BeanDefinition candidate : scanner.findCandidateComponents("io.agentrun.api")) {
            Class<?> controller = ClassUtils.resolveClassName(candidate.getBeanClassName(), OpenApiDocumentTest.class.getClassLoader());
            for (Method method : controller.getDeclaredMethods()) {
                RequestMapping mapping = AnnotatedElementUtils.findMergedAnnotation(method, RequestMapping.class);
                if (mapping == null || !which.test(method)) {
                    continue;
                }
                for (String path : mapping.path()) {
                    if (path.startsWith("/api/v1/")) {
                        Arrays.stream(mapping.method()).forEach(verb -> handlers.add(verb.name() + " " + path));
                    }
                }
            }
        }
        assertThat(handlers).as("handlers found by scanning").isNotEmpty();
        return handlers;
    }

    private static Set<String> values(JsonNode array) {
        return StreamSupport.stream(array.spliterator(), false).map(JsonNode::asString).collect(Collectors.toCollection(TreeSet::new));
    }
}
