package io.agentrun.e2e.suites;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.e2e.fixture.SharedPipeline;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.json.JsonCodec;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/**
 * Runs that answer in a JSON Schema ({@code response_format}), through the whole pipeline with the scripted model:
 * {@code output_json} in the stream, the one-off answer and the run read back, and it validates; an answer out of
 * shape gets one retry; one that never complies fails the run {@code output_schema_mismatch}; a schema that cannot
 * shape an answer is a 400 before any run exists.
 */
@ExtendWith({RealInfrastructure.class, SharedPipeline.class})
class StructuredOutputIT {

    private static final JsonCodec CODEC = new JsonCodec();
    private static final String SCHEMA = """
            {"type":"object","properties":{"city":{"type":"string"},"temperature_c":{"type":"number"},
             "tags":{"type":"array","items":{"type":"string"},"maxItems":3}},
             "required":["city","temperature_c"],"additionalProperties":false}""";
    private static final Schema VALIDATOR = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12).getSchema(CODEC.mapper().readTree(SCHEMA));

    static Pipeline pipeline;
    static ApiClient client;
    static ApiClient admin;

    @BeforeAll
    static void start(Pipeline project) {
        pipeline = project;
        client = new ApiClient(pipeline.api(0), pipeline.projectId, pipeline.apiKey);
        admin = new ApiClient(pipeline.api(0), Map.of("Authorization", "Bearer " + pipeline.adminToken));
    }

    private static String body(String answers) {
        return "{\"query\":" + CODEC.write("/json " + answers)
                + ",\"response_format\":{\"type\":\"json_schema\",\"name\":\"weather\",\"schema\":" + SCHEMA + "}}";
    }

    @Test
    void aStreamedRunAnswersJsonThatValidatesInItsEventsAndWhenReadBack() {
        ApiClient.StreamResponse stream = client.stream("assistant", null, body("{\"city\": \"Oslo\", \"temperature_c\": -3.5}"));

        assertThat(stream.status()).isEqualTo(200);
        JsonNode messageFinal = data(stream, "message_final");
        JsonNode runEnd = data(stream, "run_end");
        assertThat(runEnd.get("status").asString()).isEqualTo("completed");
        JsonNode answer = runEnd.get("output_json");
        assertThat(VALIDATOR.validate(answer)).isEmpty();
        assertThat(answer.get("city").asString()).isEqualTo("Oslo");
        assertThat(messageFinal.get("output_json")).isEqualTo(answer);
        assertThat(runEnd.get("output").asString()).isEqualTo("{\"city\": \"Oslo\", \"temperature_c\": -3.5}");

        JsonNode run = CODEC.mapper().readTree(client.get("/api/v1/runs/" + stream.header("x-run-id")).body());
        assertThat(run.get("output_json")).isEqualTo(answer);
    }

    @Test
    void anAnswerOutOfShapeIsAskedForAgainOnceAndTheOneOffAnswerCarriesTheSecond() {
        HttpResponse<String> response = client.run("assistant", body("{\"city\": \"Oslo\"} || {\"city\": \"Oslo\", \"temperature_c\": 4}"),
                Map.of("content-type", "application/json", "accept", "application/json"));

        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode result = CODEC.mapper().readTree(response.body());
        assertThat(result.get("status").asString()).isEqualTo("completed");
        assertThat(VALIDATOR.validate(result.get("output_json"))).isEmpty();
        assertThat(result.get("output_json").get("temperature_c").asInt()).isEqualTo(4);
    }

    @Test
    void aRejectedAnswerIsSaidInFullButTheThreadKeepsOnlyTheQuestionAndTheAnswerThatMatched() {
        ApiClient.StreamResponse stream = client.stream("assistant", null, body("{\"city\": \"Oslo\"} || {\"city\": \"Oslo\", \"temperature_c\": 4}"));

        List<JsonNode> finals = stream.events().stream().filter(e -> e.event().equals("message_final"))
                .map(e -> CODEC.mapper().readTree(e.data()).get("data")).toList();
        assertThat(finals).hasSize(2);
        assertThat(finals.get(0).get("rejected").asBoolean()).isTrue();
        assertThat(finals.get(1).has("rejected")).isFalse();
        String threadId = stream.header("x-thread-id");
        await("the run's history").atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            JsonNode messages = CODEC.mapper().readTree(client.get("/api/v1/threads/" + threadId + "/messages").body()).get("messages");
            assertThat(messages.valueStream().map(m -> m.get("role").asString() + ": " + m.get("content").asString()).toList())
                    .containsExactly("user: /json {\"city\": \"Oslo\"} || {\"city\": \"Oslo\", \"temperature_c\": 4}",
                            "assistant: {\"city\": \"Oslo\", \"temperature_c\": 4}");
        });
    }

    @Test
    void aModelThatNeverAnswersInShapeFailsTheRunWithTheProblems() {
        ApiClient.StreamResponse stream = client.stream("assistant", null, body("{\"city\": 7, \"temperature_c\": 1} || not json"));

        JsonNode error = data(stream, "error");
        assertThat(error.get("code").asString()).isEqualTo("output_schema_mismatch");
        assertThat(error.get("message").asString()).contains("not JSON");
        JsonNode runEnd = data(stream, "run_end");
        assertThat(runEnd.get("status").asString()).isEqualTo("failed");
        assertThat(runEnd.has("output_json")).isFalse();
        assertThat(stream.events().getLast().event()).isEqualTo("run_end");

        JsonNode run = CODEC.mapper().readTree(client.get("/api/v1/runs/" + stream.header("x-run-id")).body());
        assertThat(run.get("status").asString()).isEqualTo("failed");
        assertThat(run.get("error").get("code").asString()).isEqualTo("output_schema_mismatch");
        assertThat(run.has("output_json")).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "{\"type\":\"weather\"}",                                      // not a JSON Schema type
            "{\"properties\":{\"a\":{\"$ref\":\"#/$defs/missing\"}}}",     // a reference to nothing
            "{\"properties\":{\"a\":{\"minLength\":-1}}}",                 // a keyword with an impossible value
    })
    void aSchemaThatCannotShapeAnAnswerIsRefusedBeforeAnyRunExists(String schema) {
        String json = "{\"query\":\"q\",\"response_format\":{\"type\":\"json_schema\",\"schema\":" + schema + "}}";

        ApiClient.StreamResponse stream = client.stream("assistant", null, json);

        assertThat(stream.status()).isEqualTo(400);
        assertThat(stream.header("content-type")).startsWith("application/problem+json");
        assertThat(CODEC.mapper().readTree(stream.body()).get("code").asString()).isEqualTo("invalid_response_format");
        assertThat(stream.header("x-run-id")).as("no run was started").isNull();
    }

    @Test
    void anAgentsDefaultSchemaShapesItsRunsAndAnAgentWithABadOneIsRefused() {
        String agents = "/admin/v1/projects/" + pipeline.projectId + "/agents/";
        HttpResponse<String> put = admin.exchange("PUT", agents + "weather", Map.of("content-type", "application/json"),
                "{\"provider\":\"scripted\",\"response_format\":{\"type\":\"json_schema\",\"schema\":" + SCHEMA + "}}");
        assertThat(put.statusCode()).as(put.body()).isIn(200, 201);
        HttpResponse<String> bad = admin.exchange("PUT", agents + "broken", Map.of("content-type", "application/json"),
                "{\"provider\":\"scripted\",\"response_format\":{\"type\":\"json_schema\",\"schema\":{\"type\":1}}}");
        assertThat(bad.statusCode()).as(bad.body()).isEqualTo(400);
        assertThat(CODEC.mapper().readTree(bad.body()).get("code").asString()).isEqualTo("invalid_response_format");
        assertThat(admin.get(agents + "broken").statusCode()).as("nothing was stored").isEqualTo(404);

        ApiClient.StreamResponse stream = client.stream("weather", null, "{\"query\":" + CODEC.write("/json {\"city\": \"Bergen\", \"temperature_c\": 9}") + "}");

        JsonNode answer = data(stream, "run_end").get("output_json");
        assertThat(VALIDATOR.validate(answer)).isEmpty();
        assertThat(answer.get("city").asString()).isEqualTo("Bergen");
    }

    /** The typed data of the stream's last {@code event} (an event's SSE data is its whole envelope). */
    private static JsonNode data(ApiClient.StreamResponse stream, String event) {
        return CODEC.mapper().readTree(stream.events().stream().filter(e -> e.event().equals(event)).reduce((a, b) -> b)
                .orElseThrow(() -> new AssertionError("no " + event + " in " + stream.events())).data()).get("data");
    }
}
