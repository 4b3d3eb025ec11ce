package io.agentrun.e2e.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.e2e.fixture.OpenApiContract;
import io.agentrun.e2e.fixture.SseEvent;
import java.net.URI;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The contract checker itself: it must catch what breaks the document, or the e2e suites prove nothing. */
class OpenApiContractTest {

    private static final URI RUN = URI.create("http://localhost/api/v1/runs/run_0123456789abcdef0123456789abcdef");
    private final OpenApiContract contract = OpenApiContract.V1;

    @AfterEach
    void forgetViolations() {
        contract.drainViolations();
    }

    @Test
    void aBodyWithAFieldTheDocumentDoesNotHaveIsAViolation() {
        contract.check("GET", RUN, 404, "application/problem+json",
                "{\"type\":\"about:blank\",\"title\":\"No such run\",\"status\":404,\"code\":\"run_not_found\",\"detail\":\"x\",\"surprise\":1}");

        assertThat(contract.drainViolations()).singleElement().asString().contains("surprise");
    }

    @Test
    void anUndocumentedStatusIsAViolation() {
        contract.check("GET", RUN, 418, "application/problem+json", "{}");

        assertThat(contract.drainViolations()).singleElement().asString().contains("418");
    }

    @Test
    void aContentTypeTheOperationDoesNotProduceIsAViolation() {
        contract.check("GET", RUN, 200, "text/html", "<p>hi</p>");

        assertThat(contract.drainViolations()).singleElement().asString().contains("text/html");
    }

    @Test
    void anUnknownEventOrAMalformedPayloadIsAViolation() {
        contract.checkEvent(new SseEvent("1", "run_paused", "{}"));
        contract.checkEvent(new SseEvent("2", "run_end", "not json"));
        contract.checkEvent(new SseEvent("3", "run_end", "{\"type\":\"run_end\"}"));

        assertThat(contract.drainViolations()).hasSize(3);
    }

    @Test
    void pathsOutsideTheV1SurfaceAreNotChecked() {
        contract.check("GET", URI.create("http://localhost/actuator/health"), 200, "text/html", "<p>up</p>");

        assertThat(contract.drainViolations()).isEmpty();
    }
}
