package io.agentrun.api.problem;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.model.json.JsonCodec;
import io.lettuce.core.RedisCommandTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.tomcat.util.http.InvalidParameterException;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotWritableException;
import org.springframework.mock.web.MockHttpServletRequest;

/** The exception-to-problem table, without a server: status, stable code, headers, and nothing internal leaked. */
class ProblemHandlerTest {

    private static final JsonCodec CODEC = new JsonCodec();
    private final ProblemHandler handler = new ProblemHandler(new ProblemResponses(CODEC));
    private final MockHttpServletRequest request = new MockHttpServletRequest("POST", "/api/v1/agents/a/run");

    @Test
    void anApiProblemKeepsItsCodeItsHeadersAndRoundsRetryAfterUp() {
        ApiProblem problem = new ApiProblem(ErrorCode.RATE_LIMITED, "slow down").retryAfter(Duration.ofMillis(1200))
                .header("x-run-id", "run_1");

        ResponseEntity<byte[]> response = handler.apiProblem(problem, request);

        assertThat(response.getStatusCode().value()).isEqualTo(429);
        assertThat(response.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("2");
        assertThat(response.getHeaders().getFirst("x-run-id")).isEqualTo("run_1");
        assertThat(response.getHeaders().getFirst(HttpHeaders.CONTENT_TYPE)).isEqualTo("application/problem+json");
        assertThat(body(response)).contains("\"code\":\"rate_limited\"", "\"detail\":\"slow down\"",
                "\"instance\":\"/api/v1/agents/a/run\"");
    }

    @Test
    void aRetryAfterBelowASecondIsOneSecondNotZero() {
        ResponseEntity<byte[]> response = handler.apiProblem(
                new ApiProblem(ErrorCode.UPSTREAM_UNAVAILABLE, "x").retryAfter(Duration.ofMillis(10)), request);

        assertThat(response.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("1");
    }

    @Test
    void redisTroubleIsA503ThatSaysNothingOfRedisInternals() {
        ResponseEntity<byte[]> response = handler.redis(new RedisCommandTimeoutException("Command timed out after 5 second(s) on 10.0.0.7:6379"),
                request);

        assertThat(response.getStatusCode().value()).isEqualTo(503);
        assertThat(body(response)).contains("\"code\":\"upstream_unavailable\"").doesNotContain("10.0.0.7").doesNotContain("timed out");
    }

    @Test
    void anythingElseIsA500WithoutTheExceptionsText() {
        ResponseEntity<byte[]> response = handler.unexpected(new IllegalStateException("secret sk_live_abc in a message"), request);

        assertThat(response.getStatusCode().value()).isEqualTo(500);
        assertThat(body(response)).contains("\"code\":\"internal_error\"").doesNotContain("sk_live_abc");
    }

    @Test
    void aTooLargeFormIs413AndABadQueryString400() {
        assertThat(handler.queryString(new InvalidParameterException("too big", 413), request).getStatusCode().value()).isEqualTo(413);
        assertThat(body(handler.queryString(new InvalidParameterException("bad %zz", 400), request)))
                .contains("\"code\":\"invalid_request\"");
    }

    @Test
    void anUnwritableResponseIs406OnlyWhenAcceptAskedForAnotherCharset() {
        request.addHeader(HttpHeaders.ACCEPT, "application/json;charset=ISO-8859-1");
        assertThat(handler.notWritable(new HttpMessageNotWritableException("x"), request).getStatusCode().value()).isEqualTo(406);

        MockHttpServletRequest plain = new MockHttpServletRequest("GET", "/api/v1/runs/run_1");
        assertThat(handler.notWritable(new HttpMessageNotWritableException("x"), plain).getStatusCode().value()).isEqualTo(500);
    }

    private static String body(ResponseEntity<byte[]> response) {
        return new String(response.getBody(), StandardCharsets.UTF_8);
    }
}
