package io.agentrun.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.infra.testing.RealInfrastructure;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(RealInfrastructure.class)
class PipelineSmokeIT {

    static Pipeline pipeline;

    @BeforeAll
    static void start() {
        pipeline = Pipeline.start(1, 1, 1);
    }

    @AfterAll
    static void stop() {
        pipeline.close();
    }

    @Test
    void streams() {
        var client = new ApiClient(pipeline.api(0), pipeline.projectId, pipeline.apiKey);
        var response = client.stream("assistant", null, ApiClient.body("hello world"));
        System.out.println("STATUS " + response.status() + " " + response.body());
        response.events().forEach(e -> System.out.println("EVENT " + e));
        assertThat(response.status()).isEqualTo(200);
    }
}
