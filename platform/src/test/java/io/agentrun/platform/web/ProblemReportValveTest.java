package io.agentrun.platform.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.model.json.JsonCodec;
import org.apache.tomcat.util.res.StringManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;

class ProblemReportValveTest {

    private static final String HEADER_TOO_LARGE =
            StringManager.getManager("org.apache.coyote.http11").getString("iib.requestheadertoolarge.error");

    @ParameterizedTest(name = "{0} with {1}, path refused {2}, line read {3} -> {4}")
    @CsvSource({
        "400, too-large, false, false, URI_TOO_LONG",
        "400, too-large, false, true,  HEADERS_TOO_LARGE",
        "400, other,     false, true,  REQUEST_LINE_INVALID",
        "400, none,      false, true,  REQUEST_LINE_INVALID",
        "400, none,      true,  true,  PATH_INVALID",
        "404, none,      false, true,  NOT_FOUND",
        "405, none,      false, true,  METHOD_NOT_ALLOWED",
        "413, none,      false, true,  PAYLOAD_TOO_LARGE",
        "417, none,      false, true,  EXPECTATION_FAILED",
        "501, none,      false, true,  NOT_IMPLEMENTED",
        "503, none,      false, true,  UNAVAILABLE",
        "505, none,      false, true,  HTTP_VERSION_NOT_SUPPORTED",
        "418, none,      false, true,  BAD_REQUEST",
        "507, none,      false, true,  INTERNAL_ERROR"})
    void tellsWhichRuleTheRequestBroke(int status, String cause, boolean pathRefused, boolean lineRead, ContainerError expected) {
        Throwable throwable = switch (cause) {
            case "too-large" -> new IllegalArgumentException(HEADER_TOO_LARGE);
            case "other" -> new IllegalArgumentException("Invalid character found in the request target");
            default -> null;
        };

        assertThat(ProblemReportValve.classify(status, throwable, pathRefused, lineRead)).isEqualTo(expected);
    }

    @Test
    void aProblemNamesTheLimitAndNeverTheRequestBytes() {
        JsonNode problem = new JsonCodec().mapper().readTree(
                ContainerError.HEADERS_TOO_LARGE.problem(8192, ProblemReportValve.instance("/a".repeat(500))).toJson(new JsonCodec()));

        assertThat(problem.get("status").asInt()).isEqualTo(431);
        assertThat(problem.get("code").asString()).isEqualTo("headers_too_large");
        assertThat(problem.get("type").asString()).isEqualTo("urn:agentrun:problem:headers_too_large");
        assertThat(problem.get("detail").asString()).contains("8192 bytes");
        assertThat(problem.get("instance").asString()).hasSize(257).endsWith("…");
    }

    @Test
    void aRequestWhoseLineWasNotReadHasNoInstance() {
        byte[] json = ContainerError.URI_TOO_LONG.problem(8192, null).toJson(new JsonCodec());

        assertThat(new JsonCodec().mapper().readTree(json).has("instance")).isFalse();
    }
}
