package io.agentrun.platform.jsonschema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.agentrun.model.json.JsonCodec;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class AnswerSchemasTest {

    private static final String PERSON = """
            {"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0}},
             "required":["name","age"],"additionalProperties":false}""";

    private final JsonCodec codec = new JsonCodec();
    private final AnswerSchemas schemas = new AnswerSchemas(16_384, 12);

    @Test
    void anAnswerInTheSchemasShapeHasNoProblems() {
        AnswerSchemas.AnswerSchema person = schemas.compile(json(PERSON));

        assertThat(person.problems(json("{\"name\":\"Ada\",\"age\":36}"))).isEmpty();
    }

    @Test
    void eachProblemOfAnAnswerNamesWhereItIs() {
        AnswerSchemas.AnswerSchema person = schemas.compile(json(PERSON));

        assertThat(person.problems(json("{\"name\":7,\"age\":-1,\"extra\":true}")))
                .hasSize(3)
                .anySatisfy(problem -> assertThat(problem).startsWith("/name: ").contains("string"))
                .anySatisfy(problem -> assertThat(problem).startsWith("/age: ").contains("0"))
                .anySatisfy(problem -> assertThat(problem).contains("extra"));
        assertThat(person.problems(json("[]"))).singleElement().asString().contains("object");
    }

    @Test
    void aValidSchemaPassesTheCheck() {
        schemas.check(json(PERSON));
        schemas.check(json("{\"$defs\":{\"p\":{\"type\":\"string\"}},\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/p\"}}"));
    }

    @Test
    void aSchemaThatIsNotJsonSchemaIsRefusedSayingWhy() {
        assertThatThrownBy(() -> schemas.check(json("{\"type\":\"person\"}")))
                .isInstanceOf(InvalidSchemaException.class).hasMessageContaining("not a valid JSON Schema 2020-12")
                .hasMessageContaining("type");
        assertThatThrownBy(() -> schemas.check(json("{\"properties\":{\"a\":{\"minimum\":\"zero\"}}}")))
                .isInstanceOf(InvalidSchemaException.class).hasMessageContaining("minimum");
        assertThatThrownBy(() -> schemas.check(json("[{\"type\":\"string\"}]")))
                .isInstanceOf(InvalidSchemaException.class).hasMessage("the schema must be a JSON object");
    }

    @Test
    void aReferenceToNothingIsRefusedBeforeAnyAnswer() {
        assertThatThrownBy(() -> schemas.check(json("{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#/$defs/missing\"}}}")))
                .isInstanceOf(InvalidSchemaException.class);
    }

    @Test
    void aRemoteReferenceIsNeverFetched() {
        // Nothing listens there; were it fetched, the check would hang or fail with a connection error, not refuse it.
        assertThatThrownBy(() -> schemas.check(json("{\"$ref\":\"http://127.0.0.1:9/schema.json\"}")))
                .isInstanceOf(InvalidSchemaException.class).hasMessageNotContaining("Connection refused");
    }

    @Test
    void aReferenceToAnotherDocumentIsRefusedSayingNothingIsFetchedAndWithoutClassNames() {
        assertThatThrownBy(() -> schemas.check(json("{\"type\":\"object\",\"properties\":{\"w\":"
                + "{\"$ref\":\"https://schemas.example.com/weather.json\"}}}")))
                .isInstanceOf(InvalidSchemaException.class)
                .hasMessageContaining("'https://schemas.example.com/weather.json', outside itself")
                .hasMessageContaining("not followed (nothing is fetched)")
                .hasMessageContaining("#/$defs/")
                .hasMessageNotContaining("java.");
    }

    @Test
    void aReferenceToAnIdTheSchemaDeclaresIsNotRefusedAsOutside() {
        schemas.check(json("{\"$defs\":{\"p\":{\"$id\":\"https://example.com/p\",\"type\":\"string\"}},"
                + "\"type\":\"array\",\"items\":{\"$ref\":\"https://example.com/p\"}}"));
    }

    @Test
    void aValidatorMessageLosesItsJavaClassNames() {
        assertThat(AnswerSchemas.readable("java.io.FileNotFoundException: https://x.example/s.json"))
                .isEqualTo("https://x.example/s.json");
        assertThat(AnswerSchemas.readable("Reference #/$defs/missing cannot be resolved")).isEqualTo("Reference #/$defs/missing cannot be resolved");
    }

    @Test
    void aSchemaTooLargeOrTooDeepIsRefused() {
        AnswerSchemas small = new AnswerSchemas(100, 3);
        assertThatThrownBy(() -> small.check(json("{\"description\":\"" + "x".repeat(200) + "\"}")))
                .isInstanceOf(InvalidSchemaException.class).hasMessageContaining("at most 100");
        assertThatThrownBy(() -> small.check(json("{\"properties\":{\"a\":{\"properties\":{\"b\":{}}}}}")))
                .isInstanceOf(InvalidSchemaException.class).hasMessageContaining("deeper than 3");
    }

    @Test
    void depthCountsNestedContainersOnly() {
        assertThat(AnswerSchemas.depth(json("{}"))).isEqualTo(1);
        assertThat(AnswerSchemas.depth(json("{\"a\":[1,{\"b\":\"c\"}]}"))).isEqualTo(3);
        assertThat(AnswerSchemas.depth(json("\"text\""))).isZero();
    }

    private JsonNode json(String text) {
        return codec.mapper().readTree(text);
    }
}
