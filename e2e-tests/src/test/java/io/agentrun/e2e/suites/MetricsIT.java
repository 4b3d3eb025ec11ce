package io.agentrun.e2e.suites;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.infra.testing.RealInfrastructure;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Each service's /actuator/prometheus after real runs: the operators' meters exist and moved. */
@ExtendWith(RealInfrastructure.class)
class MetricsIT {

    static Pipeline pipeline;
    static ApiClient client;

    @BeforeAll
    static void start() {
        pipeline = Pipeline.start(1, 1, 1);
        client = new ApiClient(pipeline.api(0), pipeline.projectId, pipeline.apiKey);
    }

    @AfterAll
    static void stop() {
        pipeline.close();
    }

    @Test
    void afterRunsEveryServiceExposesItsMetersWithValues() {
        var completed = client.stream("assistant", null, ApiClient.body("count me"));
        var failed = client.stream("assistant", null, ApiClient.body("/fail"));
        int events = completed.events().size() + failed.events().size();

        String api = scrape(pipeline.api(0));
        assertThat(value(api, "agentrun_event_delivery_seconds_count", "")).isEqualTo(events);
        assertThat(value(api, "agentrun_stream_first_event_seconds_count", "agent=\"assistant\"")).isEqualTo(2);
        assertThat(api).contains("agentrun_sse_connections");
        assertThat(value(api, "agentrun_dependency_up", "dependency=\"redis\"")).isEqualTo(1);
        assertThat(value(api, "agentrun_dependency_up", "dependency=\"kafka\"")).isEqualTo(1);

        String worker = scrape(pipeline.worker(0));
        assertThat(value(worker, "agentrun_runs_started_total", "agent=\"assistant\"")).isEqualTo(2);
        assertThat(value(worker, "agentrun_runs_ended_total", "status=\"completed\"")).isEqualTo(1);
        assertThat(value(worker, "agentrun_runs_ended_total", "status=\"failed\"")).isEqualTo(1);
        assertThat(value(worker, "agentrun_run_duration_seconds_count", "status=\"completed\"")).isEqualTo(1);
        assertThat(worker).contains("agentrun_worker_runs_in_flight", "agentrun_worker_leases_lost_total",
                "agentrun_worker_sweeper_requeued_total");
        assertThat(value(worker, "agentrun_worker_commands_total", "outcome=\"started\"")).isEqualTo(2);
        assertThat(value(worker, "agentrun_worker_share_group_lag", "")).as("every command is finished with").isZero();
        assertThat(value(worker, "agentrun_dependency_up", "dependency=\"kafka\"")).isEqualTo(1);

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            String relay = scrape(pipeline.relay(0));
            assertThat(value(relay, "agentrun_relay_event_age_seconds_count", "")).isEqualTo(events);
            assertThat(relay).contains("agentrun_relay_lag", "agentrun_relay_batches_failed_total");
            assertThat(value(relay, "agentrun_relay_events_fenced_total", "")).isZero();
        });
    }

    @Test
    void probesReflectRedisAndKafka() {
        for (URI node : new URI[] {pipeline.api(0), pipeline.worker(0), pipeline.relay(0)}) {
            HttpResponse<String> readiness = get(node, "/actuator/health/readiness");
            assertThat(readiness.statusCode()).as(node + " readiness").isEqualTo(200);
            assertThat(readiness.body()).contains("\"redis\"", "\"kafka\"");
            assertThat(get(node, "/actuator/health/liveness").statusCode()).isEqualTo(200);
        }
    }

    private static String scrape(URI node) {
        HttpResponse<String> response = get(node, "/actuator/prometheus");
        assertThat(response.statusCode()).as("scrape of " + node).isEqualTo(200);
        return response.body();
    }

    private static HttpResponse<String> get(URI node, String path) {
        return new ApiClient(node, Map.of()).get(path);
    }

    /** Sum of the samples of {@code name} whose labels contain {@code labelPart}. */
    private static double value(String exposition, String name, String labelPart) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(\\{[^}]*\\})? ([0-9.eE+-]+)$").matcher(exposition);
        double sum = 0;
        boolean found = false;
        while (m.find()) {
            if (m.group(1) == null ? labelPart.isEmpty() : m.group(1).contains(labelPart)) {
                sum += Double.parseDouble(m.group(2));
                found = true;
            }
        }
        assertThat(found).as("a sample of %s{%s} in\n%s", name, labelPart, exposition).isTrue();
        return sum;
    }
}
