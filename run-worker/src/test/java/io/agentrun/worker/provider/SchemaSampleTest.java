package io.agentrun.worker.provider;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.jsonschema.AnswerSchemas;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;

/**
 * The value the scripted model answers a run that asks for an answer in a JSON Schema: each schema's sample is the value
 * expected, and the project's own validator ({@link AnswerSchemas}, what the run checks answers with) accepts it.
 */
class SchemaSampleTest {

    private static final JsonCodec CODEC = new JsonCodec();
    private static final AnswerSchemas SCHEMAS = new AnswerSchemas(AnswerSchemas.DEFAULT_MAX_BYTES, AnswerSchemas.DEFAULT_MAX_DEPTH);

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            # the TypeScript README's example
            {"type":"object","properties":{"city":{"type":"string"},"temperature_c":{"type":"number"}},"required":["city","temperature_c"]} | {"city":"string","temperature_c":0}
            # what a schema says a value is or may be comes first
            {"type":"string","const":"fixed"}                                        | "fixed"
            {"type":"integer","default":7}                                           | 7
            {"type":"string","examples":["Oslo","Bergen"]}                           | "Oslo"
            {"enum":["low","high"]}                                                  | "low"
            {"type":"object","properties":{"unit":{"enum":["C","F"]},"ok":{"type":"boolean"},"none":{"type":"null"}}} | {"unit":"C","ok":true,"none":null}
            # strings: formats, lengths
            {"type":"string","format":"date-time"}                                   | "2026-01-01T00:00:00Z"
            {"type":"string","format":"email"}                                       | "user@example.com"
            {"type":"string","format":"uuid"}                                        | "00000000-0000-4000-8000-000000000000"
            {"type":"string","minLength":10}                                         | "stringxxxx"
            {"type":"string","maxLength":3}                                          | "str"
            # numbers: ranges, multiples
            {"type":"integer","minimum":5}                                           | 5
            {"type":"number","exclusiveMinimum":0,"maximum":59.9}                    | 1
            {"type":"number","exclusiveMinimum":0,"maximum":0.5}                     | 0.5
            {"type":"integer","maximum":-3}                                          | -3
            {"type":"integer","exclusiveMaximum":0}                                  | -1
            {"type":"number","minimum":0.3,"multipleOf":0.25}                        | 0.5
            {"type":"integer","minimum":10,"multipleOf":4}                           | 12
            {"type":["null","integer"]}                                              | 0
            # arrays: one item, or as many as asked, distinct when they must be
            {"type":"array","items":{"type":"string"}}                               | ["string"]
            {"type":"array","items":{"type":"integer"},"minItems":3,"uniqueItems":true} | [0,1,2]
            {"type":"array","items":{"type":"string"},"maxItems":0}                  | []
            {"type":"array","prefixItems":[{"type":"string"},{"type":"boolean"}],"items":false} | ["string",true]
            {"type":"array","contains":{"const":"must"}}                             | ["must"]
            # objects: nested, required without properties, a minimum of properties
            {"type":"object","properties":{"where":{"type":"object","properties":{"lat":{"type":"number","minimum":-90,"maximum":90}},"required":["lat"]}},"required":["where"],"additionalProperties":false} | {"where":{"lat":0}}
            {"type":"object","required":["id"]}                                      | {"id":"string"}
            {"type":"object","additionalProperties":{"type":"integer"},"minProperties":2} | {"property1":0,"property2":0}
            # local references, allOf merged, anyOf and oneOf their first branch; a schema with no type
            {"$defs":{"city":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}},"type":"array","items":{"$ref":"#/$defs/city"}} | [{"name":"string"}]
            {"allOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"properties":{"b":{"type":"integer"}},"required":["b"]}]} | {"a":"string","b":0}
            {"anyOf":[{"type":"integer","minimum":1},{"type":"string"}]}             | 1
            {"oneOf":[{"type":"boolean"},{"type":"string"}]}                          | true
            {}                                                                       | "string"
            {"properties":{"n":{"minimum":2}}}                                       | {"n":2}
            # a tree: optional children end, so the value is finite
            {"$defs":{"node":{"type":"object","properties":{"label":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["label"]}},"$ref":"#/$defs/node"} | {"label":"string","children":[{"label":"string","children":[{"label":"string"}]}]}
            """)
    void aSampleIsTheValueExpectedAndTheSchemaAcceptsIt(String schemaJson, String expectedJson) {
        JsonNode schema = CODEC.mapper().readTree(schemaJson);
        SCHEMAS.check(schema);

        String answer = SchemaSample.of(schema).toString(); // what the scripted model answers, read back as the run reads it

        assertThat(SCHEMAS.compile(schema).problems(CODEC.mapper().readTree(answer))).as("%s for %s", answer, schemaJson).isEmpty();
        assertThat(answer).isEqualTo(CODEC.mapper().readTree(expectedJson).toString());
    }
}
