package io.agentrun.e2e.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.agentrun.e2e.fixture.ApiClient;
import io.agentrun.e2e.fixture.StackProcess;
import io.agentrun.e2e.fixture.SuiteLanes;
import io.agentrun.e2e.fixture.Transcript;
import io.agentrun.infra.kafka.KafkaBroker;
import io.agentrun.infra.redis.RedisServer;
import io.agentrun.model.event.RunStatus;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The local stack restarts each dead part on its own: a redis-server killed while the Kafka broker is still restarting
 * answers again within seconds, not once the broker is back; a worker killed meanwhile is not started while Kafka does
 * not answer (it would exit at once), and is once it does; then the stack serves runs again.
 */
@Order(SuiteLanes.SHARED_STACK_SUITES)
@ResourceLock(SuiteLanes.SHARED_STACK) // kills processes of the shared fault stack
class StackSupervisionIT {

    private static final Duration REDIS_BACK_WITHIN = Duration.ofSeconds(5);
    private static final Duration POLL = Duration.ofMillis(20);

    /** Shared with the other fault suites of this JVM: not closed here. */
    static StackProcess stack;

    @BeforeAll
    static void start() {
        stack = StackProcess.shared();
    }

    @Test
    void redisKilledWhileTheBrokerRestartsIsBackWithinSecondsAndAWorkerWaitsForKafka() {
        long brokerHeld = restartingBrokerHeld();
        long redisKilled;
        long redisBack;
        long workerPid = stack.pid("worker-1");
        try {
            long redisPid = stack.pid("redis");
            int redisPort = URI.create(stack.redisUrl()).getPort();
            redisKilled = System.nanoTime();
            stack.kill9("redis");
            stack.kill9("worker-1");
            await("redis-server started again and answering PING").atMost(Duration.ofSeconds(30)).pollInterval(POLL)
                    .until(() -> stack.pid("redis") != redisPid && RedisServer.ping("127.0.0.1", redisPort));
            redisBack = System.nanoTime();

            assertThat(stack.pid("kafka")).as("the broker still restarting, held by SIGSTOP").isEqualTo(brokerHeld);
            assertThat(KafkaBroker.answersMetadata(stack.kafkaBootstrap())).as("Kafka answers").isFalse();
            await("worker-1 not started while Kafka does not answer").during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
                    .until(() -> stack.pid("worker-1") == workerPid);
        } finally {
            stack.resume("kafka");
        }
        long resumed = System.nanoTime();
        long redisBackMs = (redisBack - redisKilled) / 1_000_000;
        System.out.printf("StackSupervisionIT: redis-server answered PING %d ms after its kill, the broker still restarting%n", redisBackMs);
        assertThat(redisBackMs).as("ms from the Redis kill to PONG, the broker restarting").isLessThan(REDIS_BACK_WITHIN.toMillis());

        await("worker-1 started again once Kafka answers").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                .until(() -> stack.pid("worker-1") != workerPid);
        System.out.printf("StackSupervisionIT: worker-1 started again %d ms after the broker was resumed%n",
                (System.nanoTime() - resumed) / 1_000_000);
        stack.awaitServing();
        for (int node = 0; node < stack.apis; node++) {
            awaitACompletedRun(node);
        }
    }

    /**
     * Kills the broker and freezes (SIGSTOP) the process the stack started in its place, before it can serve: the
     * stack's restart of it stays under way until {@code resume}. Returns that process's pid.
     */
    private static long restartingBrokerHeld() {
        long killed = stack.pid("kafka");
        stack.kill9("kafka");
        long restarting = await("the stack to start the broker again").atMost(Duration.ofSeconds(30)).pollInterval(POLL)
                .until(() -> stack.pid("kafka"), pid -> pid != killed);
        stack.stop("kafka");
        return restarting;
    }

    private static void awaitACompletedRun(int node) {
        await("a run through api node " + node + " to complete").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                .ignoreExceptions().untilAsserted(() -> {
                    var run = stack.client(node).stream("assistant", null, ApiClient.body("after the restarts"));
                    assertThat(run.status()).isEqualTo(200);
                    Transcript transcript = Transcript.of(run.events()).assertWellFormed(run.header("x-run-id"), run.header("x-thread-id"));
                    assertThat(transcript.runEnd().status()).isEqualTo(RunStatus.COMPLETED);
                    assertThat(transcript.runEnd().output()).isEqualTo("Echo #1: after the restarts");
                });
    }
}
