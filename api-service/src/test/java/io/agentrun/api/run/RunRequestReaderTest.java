package io.agentrun.api.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.agentrun.api.ApiSettings;
import io.agentrun.api.problem.ApiProblem;
import io.agentrun.api.problem.ErrorCode;
import io.agentrun.model.json.JsonCodec;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.mock.web.MockHttpServletRequest;

/** The run body's validation, without a server: what is accepted, and the exact problem for what is not. */
class RunRequestReaderTest {

    private static final ApiSettings SETTINGS = new Binder(new MapConfigurationPropertySource(Map.of(
            "agentrun.api.max-list-items", "2", "agentrun.api.max-item-length", "20", "agentrun.api.max-body-size", "200B")))
            .bindOrCreate("agentrun.api", ApiSettings.class);
    private final RunRequestReader reader = new RunRequestReader(new JsonCodec(), SETTINGS);

    @Test
    void aWholeBodyIsRead() {
        RunRequest request = reader.parse(bytes("""
                {"query":"hi","images":["https://x/a.png"],"contexts":["faq"],"metadata":{"user":"u1","n":2}}"""));

        assertThat(request.input().query()).isEqualTo("hi");
        assertThat(request.input().images()).containsExactly("https://x/a.png");
        assertThat(request.input().contexts()).containsExactly("faq");
        assertThat(request.input().documents()).isEmpty();
        assertThat(request.metadata()).isEqualTo(Map.of("user", "u1", "n", 2));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
            "[]                                      | the body must be a JSON object",
            "{}                                      | 'query' is required",
            "{\"query\":null}                        | 'query' is required",
            "{\"query\":7}                           | 'query' must be a string",
            "{\"query\":\"  \"}                      | 'query' must not be blank",
            "{\"query\":\"q\",\"qeury\":1}           | unknown field 'qeury'",
            "{\"query\":\"q\",\"images\":\"x\"}      | 'images' must be an array of strings",
            "{\"query\":\"q\",\"images\":[\"\"]}     | 'images' must contain only non-empty strings",
            "{\"query\":\"q\",\"audios\":[\"a\",\"b\",\"c\"]} | 'audios' has 3 entries; at most 2 are allowed",
            "{\"query\":\"q\",\"contexts\":[\"0123456789012345678901\"]} | an entry of 'contexts' is longer than 20 characters",
            "{\"query\":\"q\",\"metadata\":[1]}      | 'metadata' must be a JSON object",
            "{\"query\":\"q\",\"response_format\":\"json\"} | 'response_format' must be a JSON object",
            "{\"query\":\"q\",\"response_format\":{\"type\":\"json_object\",\"schema\":{}}} | 'response_format.type' must be \"json_schema\"",
            "{\"query\":\"q\",\"response_format\":{\"type\":\"json_schema\"}} | 'response_format.schema' is required",
            "{\"query\":\"q\",\"response_format\":{\"type\":\"json_schema\",\"schema\":{},\"strict\":true}} | unknown field 'response_format.strict'",
            "{\"query\":\"q\",\"response_format\":{\"type\":\"json_schema\",\"schema\":{},\"name\":\"a b\"}} | 'response_format.name' must be 1–64 letters",
            "{\"query\":\"q\",\"response_format\":{\"type\":\"json_schema\",\"schema\":{},\"name\":3}} | 'response_format.name' must be a string",
    })
    void eachMistakeIsAnInvalidRequestThatNamesIt(String body, String detail) {
        assertThatThrownBy(() -> reader.parse(bytes(body))).isInstanceOfSatisfying(ApiProblem.class, problem -> {
            assertThat(problem.code()).isEqualTo(ErrorCode.INVALID_REQUEST);
            assertThat(problem.detail()).contains(detail);
        });
    }

    @Test
    void aResponseFormatIsReadWithItsSchema() {
        RunRequest request = reader.parse(bytes("""
                {"query":"q","response_format":{"type":"json_schema","name":"person",
                 "schema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}"""));

        assertThat(request.input().responseFormat()).isNotNull();
        assertThat(request.input().responseFormat().name()).isEqualTo("person");
        assertThat(request.input().responseFormat().schema().get("required").get(0).asString()).isEqualTo("name");
        assertThat(reader.parse(bytes("{\"query\":\"q\"}")).input().responseFormat()).isNull();
        assertThat(reader.parse(bytes("{\"query\":\"q\",\"response_format\":{\"type\":\"json_schema\",\"schema\":{}}}"))
                .input().responseFormat().name()).isEqualTo("response");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
            "{\"type\":\"person\"}                                 | not a valid JSON Schema 2020-12",
            "{\"properties\":{\"a\":{\"$ref\":\"#/$defs/none\"}}}    | cannot be used",
            "[]                                                   | must be a JSON object",
    })
    void aSchemaThatCannotShapeAnAnswerIsItsOwnProblem(String schema, String detail) {
        String body = "{\"query\":\"q\",\"response_format\":{\"type\":\"json_schema\",\"schema\":" + schema + "}}";
        assertThatThrownBy(() -> reader.parse(bytes(body))).isInstanceOfSatisfying(ApiProblem.class, problem -> {
            assertThat(problem.code()).isEqualTo(ErrorCode.INVALID_RESPONSE_FORMAT);
            assertThat(problem.detail()).startsWith("'response_format.schema': ").contains(detail);
        });
    }

    @Test
    void aSchemaTooLargeOrTooDeepIsRefused() {
        RunRequestReader limited = new RunRequestReader(new JsonCodec(), new Binder(new MapConfigurationPropertySource(Map.of(
                "agentrun.api.max-response-schema-bytes", "60", "agentrun.api.max-response-schema-depth", "3")))
                .bindOrCreate("agentrun.api", ApiSettings.class));
        String large = "{\"query\":\"q\",\"response_format\":{\"type\":\"json_schema\",\"schema\":{\"description\":\""
                + "x".repeat(80) + "\"}}}";
        String deep = "{\"query\":\"q\",\"response_format\":{\"type\":\"json_schema\",\"schema\":"
                + "{\"items\":{\"items\":{\"items\":{}}}}}}";

        assertThatThrownBy(() -> limited.parse(bytes(large))).isInstanceOfSatisfying(ApiProblem.class,
                problem -> assertThat(problem.detail()).contains("at most 60 are allowed"));
        assertThatThrownBy(() -> limited.parse(bytes(deep))).isInstanceOfSatisfying(ApiProblem.class,
                problem -> assertThat(problem.detail()).contains("deeper than 3 levels"));
    }

    @Test
    void aBodyThatIsNotJsonOrTooLargeIsRefusedBeforeItIsParsed() {
        MockHttpServletRequest text = new MockHttpServletRequest("POST", "/");
        text.setContentType("text/plain");
        text.setContent(bytes("{\"query\":\"hi\"}"));
        assertThat(code(text)).isEqualTo(ErrorCode.UNSUPPORTED_MEDIA_TYPE);

        MockHttpServletRequest large = new MockHttpServletRequest("POST", "/");
        large.setContentType("application/json");
        large.setContent(bytes("{\"query\":\"" + "x".repeat(300) + "\"}"));
        assertThat(code(large)).isEqualTo(ErrorCode.PAYLOAD_TOO_LARGE);

        MockHttpServletRequest vendorJson = new MockHttpServletRequest("POST", "/");
        vendorJson.setContentType("application/vnd.example+json");
        vendorJson.setContent(bytes("{\"query\":\"hi\"}"));
        assertThat(reader.read(vendorJson).input().query()).isEqualTo("hi");
    }

    private ErrorCode code(MockHttpServletRequest request) {
        try {
            reader.read(request);
            return null;
        } catch (ApiProblem problem) {
            return problem.code();
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
