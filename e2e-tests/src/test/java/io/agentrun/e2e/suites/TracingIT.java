package io.agentrun.e2e.suites;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.e2e.fixture.Transcript;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.event.EventData;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** One run is one trace across processes' worth of services: the context crosses Kafka both ways. */
@ExtendWith(RealInfrastructure.class)
class TracingIT {

    private static final AttributeKey<String> SERVICE = AttributeKey.stringKey("service.name");
    /** Every service's spans land here (each service keeps its own tracer, as in separate processes). */
    static final InMemorySpanExporter SPANS = InMemorySpanExporter.create();
    static Pipeline pipeline;
    static ApiClient client;

    @BeforeAll
    static void start() {
        pipeline = Pipeline.start(1, 1, 1, Map.of("management.tracing.sampling.probability", "1.0"),
                context -> context.getBeanFactory().registerSingleton("testSpanExporter", SPANS));
        client = new ApiClient(pipeline.api(0), pipeline.projectId, pipeline.apiKey);
    }

    @AfterAll
    static void stop() {
        pipeline.close();
    }

    @Test
    void oneRunIsOneTraceWithApiWorkerAndRelaySpans() {
        var response = client.stream("assistant", null, ApiClient.body("/tool calculator {\"expression\":\"6*7\"}"));
        Transcript transcript = Transcript.of(response.events());
        String traceId = transcript.only(EventData.RunStart.class).traceId();
        assertThat(traceId).as("run_start carries the trace id").matches("[0-9a-f]{32}");

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            List<SpanData> trace = SPANS.getFinishedSpanItems().stream().filter(s -> s.getTraceId().equals(traceId)).toList();
            Map<String, Set<String>> byService = trace.stream().collect(Collectors.groupingBy(
                    s -> s.getResource().getAttribute(SERVICE), Collectors.mapping(SpanData::getName, Collectors.toSet())));
            assertThat(byService.get("api-service")).contains("agentrun.stream", "agentrun.run.enqueue", "agentrun.sse.deliver",
                    "agentrun.sse.write");
            assertThat(byService.get("run-worker")).contains("agentrun.run", "agentrun.model.call", "agentrun.tool.call");
            assertThat(byService.get("event-relay")).contains("agentrun.relay.apply");
        });
        List<SpanData> trace = SPANS.getFinishedSpanItems().stream().filter(s -> s.getTraceId().equals(traceId)).toList();
        SpanData enqueue = named(trace, "agentrun.run.enqueue");
        SpanData run = named(trace, "agentrun.run");
        assertThat(run.getParentSpanId()).as("the worker continues the enqueue's span, across Kafka").isEqualTo(enqueue.getSpanId());
        assertThat(trace.stream().filter(s -> s.getName().equals("agentrun.relay.apply")))
                .as("run_start and run_end, children of the worker's run span, across Kafka again")
                .hasSize(2).allSatisfy(s -> assertThat(s.getParentSpanId()).isEqualTo(run.getSpanId()));
        assertThat(named(trace, "agentrun.tool.call").getParentSpanId()).isEqualTo(run.getSpanId());
        List<String> relaySpans = trace.stream().filter(s -> s.getName().equals("agentrun.relay.apply")).map(SpanData::getSpanId).toList();
        assertThat(trace.stream().filter(s -> s.getName().equals("agentrun.sse.write")))
                .as("the writes of run_start and run_end, children of the relay's spans, across the pub/sub payload")
                .hasSize(2).allSatisfy(s -> assertThat(relaySpans).contains(s.getParentSpanId()));
        // A fixed set per run, whatever its length: api 6 (request, stream, enqueue, deliver, two writes), worker 4 (run,
        // a model call either side of the tool call), relay 2 (run_start, run_end). None per delta, none per Kafka send.
        assertThat(trace.stream().map(SpanData::getName))
                .containsExactlyInAnyOrder("http post /api/v1/agents/{agentId}/stream/threads", "agentrun.stream",
                        "agentrun.run.enqueue", "agentrun.sse.deliver", "agentrun.sse.write", "agentrun.sse.write",
                        "agentrun.run", "agentrun.model.call", "agentrun.model.call", "agentrun.tool.call",
                        "agentrun.relay.apply", "agentrun.relay.apply");
        assertThat(transcript.types().stream().filter("message_delta"::equals).count())
                .as("deltas, none of which has a span").isPositive();
    }

    /**
     * A caller that sends a W3C {@code traceparent} (its own service's span) gets the run in its trace: the
     * request's server span is a child of the caller's, and the worker's and relay's spans follow under it.
     */
    @Test
    void aCallersTraceparentMakesTheRunPartOfTheCallersTrace() {
        String callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
        String callerSpan = "00f067aa0ba902b7";
        var response = client.stream("assistant", null, ApiClient.body("Hello"), Map.of("content-type", "application/json",
                "traceparent", "00-" + callerTrace + "-" + callerSpan + "-01"));
        String traceId = Transcript.of(response.events()).only(EventData.RunStart.class).traceId();
        assertThat(traceId).as("run_start names the caller's trace").isEqualTo(callerTrace);

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(SPANS.getFinishedSpanItems().stream()
                .filter(s -> s.getTraceId().equals(callerTrace)).map(SpanData::getName)).contains("agentrun.stream", "agentrun.run",
                "agentrun.relay.apply"));
        List<SpanData> trace = SPANS.getFinishedSpanItems().stream().filter(s -> s.getTraceId().equals(callerTrace)).toList();
        SpanData server = trace.stream().filter(s -> s.getParentSpanId().equals(callerSpan)).findFirst().orElseThrow();
        assertThat(server.getKind()).as("Spring's span of the HTTP request, under the caller's").isEqualTo(SpanKind.SERVER);
        assertThat(named(trace, "agentrun.stream").getParentSpanId()).isEqualTo(server.getSpanId());
    }

    private static SpanData named(List<SpanData> spans, String name) {
        List<SpanData> found = spans.stream().filter(s -> s.getName().equals(name)).toList();
        assertThat(found).as("spans named %s", name).hasSize(1);
        return found.getFirst();
    }
}
