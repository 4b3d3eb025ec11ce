package io.agentrun.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.model.json.JsonCodec;
import tools.jackson.databind.JsonNode;

/** What every refusal must look like: RFC 9457 problem+json whose status and stable code agree with the response. */
final class Problems {

    private static final JsonCodec CODEC = new JsonCodec();

    private Problems() {
    }

    /** @return the problem's code */
    static String assertProblem(RawHttp.Response response) {
        assertThat(response.header("content-type")).as("content type").startsWith("application/problem+json");
        return assertProblemBody(CODEC.mapper().readTree(response.body()), response.status());
    }

    /** @return the problem's code */
    static String assertProblem(java.net.http.HttpResponse<String> response) {
        assertThat(response.headers().firstValue("content-type")).as("content type").hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        return assertProblemBody(CODEC.mapper().readTree(response.body()), response.statusCode());
    }

    private static String assertProblemBody(JsonNode problem, int status) {
        String code = problem.get("code").asString();
        assertThat(code).matches("[a-z_]+");
        assertThat(problem.get("type").asString()).isEqualTo("urn:agentrun:problem:" + code);
        assertThat(problem.get("status").asInt()).isEqualTo(status);
        assertThat(problem.get("title").asString()).isNotBlank();
        assertThat(problem.get("detail").asString()).isNotBlank();
        return code;
    }
}
