package io.agentrun.e2e.suites;

import static org.assertj.core.api.Assertions.assertThat;

import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.Pipeline;
import io.agentrun.api.bootstrap.Bootstrap;
import io.agentrun.infra.testing.RealInfrastructure;
import io.agentrun.ops.cli.OpsCli;
import io.agentrun.platform.store.ThreadStore;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Rebuild over many threads at once, interleaved on the event partitions: every thread gets its whole
 * history back, in order. Prints how long the rebuild and a replay took (OPS lines).
 */
@ExtendWith(RealInfrastructure.class)
class RebuildScaleIT {

    private static final int THREADS = 20;
    private static final int TURNS = 5;

    @Test
    void everyThreadGetsItsWholeHistoryBackInOrder() throws Exception {
        try (Pipeline pipeline = Pipeline.startOnOwnRedis(1, 1, 1)) {
            ApiClient client = new ApiClient(pipeline.api(0), pipeline.projectId, pipeline.apiKey);
            List<String> threads = converse(client);
            ThreadStore store = pipeline.apiBean(ThreadStore.class);
            List<List<String>> before = threads.stream().map(t -> store.history(t).stream().map(m -> m.role() + ":" + m.content()).toList()).toList();

            pipeline.redis().sync().flushall();
            pipeline.apiBean(Bootstrap.class).afterSingletonsInstantiated();
            long started = System.nanoTime();
            String rebuilt = run(pipeline, "rebuild-state", "--force");
            long rebuildMs = (System.nanoTime() - started) / 1_000_000;
            started = System.nanoTime();
            String replay = run(pipeline, "replay", "--thread", threads.getFirst(), "--format", "jsonl");
            long replayMs = (System.nanoTime() - started) / 1_000_000;

            for (int i = 0; i < threads.size(); i++) {
                List<String> after = store.history(threads.get(i)).stream().map(m -> m.role() + ":" + m.content()).toList();
                assertThat(after).as("history of thread %d", i).hasSize(2 * TURNS).isEqualTo(before.get(i));
                assertThat(after.getLast()).isEqualTo("ASSISTANT:Echo #" + TURNS + ": turn " + TURNS);
            }
            System.out.println("OPS | " + rebuilt.strip() + " | cli wall " + rebuildMs + " ms");
            System.out.println("OPS | replay of one thread (" + replay.lines().count() + " events): " + replayMs + " ms");
        }
    }

    /** THREADS conversations of TURNS turns, side by side. */
    private static List<String> converse(ApiClient client) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<String>> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                threads.add(pool.submit(() -> {
                    String threadId = null;
                    for (int turn = 1; turn <= TURNS; turn++) {
                        var response = client.stream("assistant", threadId, ApiClient.body("turn " + turn));
                        assertThat(response.status()).isEqualTo(200);
                        threadId = response.header("x-thread-id");
                    }
                    return threadId;
                }));
            }
            List<String> ids = new ArrayList<>();
            for (Future<String> thread : threads) {
                ids.add(thread.get());
            }
            return ids;
        } finally {
            pool.shutdownNow();
        }
    }

    private static String run(Pipeline pipeline, String... args) {
        Map<String, Object> p = pipeline.properties();
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--bootstrap-servers", (String) p.get("spring.kafka.bootstrap-servers"),
                "--events-topic", (String) p.get("agentrun.kafka.events-topic"), "--redis-url", pipeline.redisUrl()));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = new OpsCli(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8))
                .run(all.toArray(String[]::new));
        assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
        return out.toString(StandardCharsets.UTF_8);
    }
}
