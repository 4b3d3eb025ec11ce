package io.agentrun.e2e.suites;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.e2e.fixture.Transcript;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.platform.store.RunStore;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two api nodes, two workers, two relays: events must reach whichever api node holds the client's
 * connection, whichever worker ran the run and whichever relay carried its partition.
 */
@ExtendWith(RealInfrastructure.class)
class ScaleOutIT {

    private static final int STREAMS = 200;
    static Pipeline pipeline;

    @BeforeAll
    static void start() {
        // A few words per delta and a small delay keep all 200 runs in flight at once.
        pipeline = Pipeline.start(2, 2, 2, Map.of("agentrun.bootstrap.delta-delay-ms", 20));
    }

    @AfterAll
    static void stop() {
        pipeline.close();
    }

    @Test
    void twoHundredConcurrentStreamsAcrossTwoApiNodesAllCompleteInOrder() throws Exception {
        List<Future<ApiClient.StreamResponse>> streams = new ArrayList<>();
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < STREAMS; i++) {
                ApiClient client = new ApiClient(pipeline.api(i % 2), pipeline.projectId, pipeline.apiKey);
                String query = "stream number " + i + " of many";
                streams.add(clients.submit(() -> client.stream("assistant", null, ApiClient.body(query))));
            }
            clients.shutdown();
            if (!clients.awaitTermination(3, TimeUnit.MINUTES)) {
                clients.shutdownNow(); // fail with the runs' states rather than wait for the stuck streams forever
                throw new AssertionError("not all streams finished in 3 minutes; run states: " + states(streams.size()));
            }
        }

        Set<String> workers = new HashSet<>();
        RunStore runs = pipeline.apiBean(RunStore.class);
        for (int i = 0; i < STREAMS; i++) {
            ApiClient.StreamResponse response = streams.get(i).get();
            assertThat(response.status()).as("status of stream %d", i).isEqualTo(200);
            String runId = response.header("x-run-id");
            Transcript transcript = Transcript.of(response.events()).assertWellFormed(runId, response.header("x-thread-id"));
            assertThat(transcript.runEnd().output()).isEqualTo("Echo #1: stream number " + i + " of many");
            assertThat(transcript.deltas()).isEqualTo(transcript.runEnd().output());
            workers.add(runs.find(runId).orElseThrow().worker());
        }
        assertThat(workers).as("runs were executed by both workers").containsExactlyInAnyOrder("worker-0", "worker-1");
    }

    /** How many of this pipeline's runs are in each status. */
    private static java.util.Map<String, Long> states(int expected) {
        var redis = pipeline.redis().sync();
        java.util.Map<String, Long> counts = new java.util.TreeMap<>();
        for (String key : redis.keys("ar:run:{*}")) {
            if (!key.endsWith(":events") && pipeline.projectId.equals(redis.hget(key, "project_id"))) {
                counts.merge(String.valueOf(redis.hget(key, "status")), 1L, Long::sum);
            }
        }
        counts.put("expected", (long) expected);
        return counts;
    }
}
