package io.agentrun.e2e.suites;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.e2e.fixture.Transcript;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.model.id.Ids;
import io.agentrun.model.json.JsonCodec;
import io.agentrun.platform.store.ThreadStore;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

/**
 * {@code Idempotency-Key}: the idempotency rules of docs/api.md, against two api nodes. (A retry after the api
 * node was killed mid-request is in FaultInjectionIT, which has processes to kill.)
 */
@ExtendWith(RealInfrastructure.class)
class IdempotencyIT {

    private static final JsonCodec CODEC = new JsonCodec();

    static Pipeline pipeline;
    static ApiClient node0;
    static ApiClient node1;

    @BeforeAll
    static void start() {
        pipeline = Pipeline.start(2, 1, 1);
        node0 = new ApiClient(pipeline.api(0), pipeline.projectId, pipeline.apiKey);
        node1 = new ApiClient(pipeline.api(1), pipeline.projectId, pipeline.apiKey);
    }

    @AfterAll
    static void stop() {
        pipeline.close();
    }

    private static Map<String, String> key(String key) {
        return Map.of("content-type", "application/json", "Idempotency-Key", key);
    }

    private static String newKey() {
        return "key-" + UUID.randomUUID();
    }

    @Test
    void theSameKeyAndBodyStreamTheSameRunOnceFromTheStart() {
        String key = newKey();
        var first = node0.stream("assistant", null, ApiClient.body("pay once"), key(key));
        var again = node1.stream("assistant", null, ApiClient.body("pay once"), key(key));

        assertThat(again.header("x-run-id")).isEqualTo(first.header("x-run-id"));
        assertThat(again.header("x-thread-id")).isEqualTo(first.header("x-thread-id"));
        assertThat(again.events()).isEqualTo(first.events());
        Transcript.of(again.events()).assertWellFormed(first.header("x-run-id"), first.header("x-thread-id"));
        assertThat(pipeline.apiBean(ThreadStore.class).history(first.header("x-thread-id"))).hasSize(2);
    }

    @Test
    void aRepeatWithLastEventIdGetsOnlyWhatFollows() {
        String key = newKey();
        var first = node0.stream("assistant", null, ApiClient.body("resume me"), key(key));
        Map<String, String> headers = new java.util.HashMap<>(key(key));
        headers.put("Last-Event-ID", "2");
        var rest = node1.stream("assistant", null, ApiClient.body("resume me"), headers);

        assertThat(rest.header("x-run-id")).isEqualTo(first.header("x-run-id"));
        assertThat(rest.events()).isEqualTo(first.events().subList(3, first.events().size()));
    }

    @Test
    void theSameKeyWithAnotherBodyIs422AndStartsNothing() {
        String key = newKey();
        var first = node0.stream("assistant", null, ApiClient.body("the original"), key(key));

        for (String body : List.of(ApiClient.body("something else"), "{\"query\":\"the original\",\"metadata\":{\"x\":1}}")) {
            var other = node1.stream("assistant", null, body, key(key));
            assertThat(other.status()).isEqualTo(422);
            assertThat(CODEC.mapper().readTree(other.body()).get("code").asString()).isEqualTo("idempotency_key_reused");
            assertThat(other.header("x-run-id")).isNull();
        }
        var asOneOff = node1.run("assistant", ApiClient.body("the original"), key(key));
        assertThat(asOneOff.statusCode()).isEqualTo(422);
        assertThat(first.status()).isEqualTo(200);
    }

    @Test
    void aOneOffRepeatedReturnsTheSameResultOfOneRun() {
        String key = newKey();
        HttpResponse<String> first = node0.run("assistant", ApiClient.body("/slow 50 just once"), key(key));
        HttpResponse<String> again = node1.run("assistant", ApiClient.body("/slow 50 just once"), key(key));

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(again.headers().firstValue("x-run-id")).isEqualTo(first.headers().firstValue("x-run-id"));
        assertThat(again.body()).isEqualTo(first.body()).isEqualTo("Echo #1: /slow 50 just once");
    }

    @Test
    void concurrentDuplicatesOnTwoNodesStartExactlyOneRun() throws Exception {
        String key = newKey();
        int requests = 20;
        CountDownLatch go = new CountDownLatch(1);
        List<CompletableFuture<ApiClient.StreamResponse>> responses = new ArrayList<>();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < requests; i++) {
                ApiClient node = i % 2 == 0 ? node0 : node1;
                responses.add(CompletableFuture.supplyAsync(() -> {
                    awaitQuietly(go);
                    return node.stream("assistant", null, ApiClient.body("/slow 20 only one of us"), key(key));
                }, pool));
            }
            go.countDown();
        }
        Set<String> runIds = new HashSet<>();
        Set<String> threadIds = new HashSet<>();
        for (CompletableFuture<ApiClient.StreamResponse> response : responses) {
            ApiClient.StreamResponse stream = response.get();
            assertThat(stream.status()).as(stream.body()).isEqualTo(200);
            runIds.add(stream.header("x-run-id"));
            threadIds.add(stream.header("x-thread-id"));
            assertThat(Transcript.of(stream.events()).runEnd().output()).isEqualTo("Echo #1: /slow 20 only one of us");
        }
        assertThat(runIds).hasSize(1);
        assertThat(threadIds).hasSize(1);
        String threadId = threadIds.iterator().next();
        JsonNode runs = CODEC.mapper().readTree(node0.get("/api/v1/threads/" + threadId + "/runs").body());
        assertThat(runs.get("runs")).hasSize(1);
        assertThat(pipeline.apiBean(ThreadStore.class).history(threadId)).hasSize(2);
    }

    @Test
    void aRefusedRequestFreesItsKeyForTheRetry() throws Exception {
        HttpResponse<InputStream> busy = node0.openStream("assistant", null, ApiClient.body("/slow 200 hold the thread a while"));
        String threadId = busy.headers().firstValue("x-thread-id").orElseThrow();
        String key = newKey();
        try (InputStream in = busy.body()) {
            var refused = node1.stream("assistant", threadId, ApiClient.body("next turn"), key(key));
            assertThat(refused.status()).isEqualTo(409);
            ApiClient.readUntil(in, e -> true);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> pipeline.apiBean(ThreadStore.class).lockHolder(threadId).isEmpty());

        var retried = node1.stream("assistant", threadId, ApiClient.body("next turn"), key(key));
        assertThat(retried.status()).isEqualTo(200);
        assertThat(Transcript.of(retried.events()).runEnd().output()).isEqualTo("Echo #2: next turn");
    }

    @Test
    void keysAreScopedToTheCredentialFamily() {
        String key = newKey();
        ApiClient admin = new ApiClient(pipeline.api(0), Map.of("Authorization", "Bearer " + pipeline.adminToken));
        HttpResponse<String> issued = admin.exchange("POST", "/admin/v1/projects/" + pipeline.projectId + "/keys",
                Map.of("content-type", "application/json"), "{\"kind\":\"publishable\",\"label\":\"widget\",\"environment\":"
                        + "\"development\",\"agents\":[\"assistant\"],\"allowed_origins\":[\"https://shop.example.com\"]}");
        assertThat(issued.statusCode()).as(issued.body()).isIn(200, 201);
        String publishable = CODEC.mapper().readTree(issued.body()).path("api_key").asString();
        ApiClient browser = new ApiClient(pipeline.api(1), Map.of("x-api-key", publishable, "Origin", "https://shop.example.com"));

        var backend = node0.stream("assistant", null, ApiClient.body("scoped"), key(key));
        var widget = browser.stream("assistant", null, ApiClient.body("scoped"), key(key));
        var widgetAgain = browser.stream("assistant", null, ApiClient.body("scoped"), key(key));

        assertThat(backend.status()).isEqualTo(200);
        assertThat(widget.status()).isEqualTo(200);
        assertThat(widget.header("x-run-id")).isNotEqualTo(backend.header("x-run-id"));
        assertThat(widgetAgain.header("x-run-id")).isEqualTo(widget.header("x-run-id"));
    }

    @Test
    void aKeyThatIsNotOneIs400() {
        for (String bad : List.of("k".repeat(256), " ")) {
            var response = node0.stream("assistant", null, ApiClient.body("q"), key(bad));
            assertThat(response.status()).as(bad).isEqualTo(400);
            assertThat(CODEC.mapper().readTree(response.body()).get("code").asString()).isEqualTo("invalid_request");
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
