package io.agentrun.worker;

import io.agentrun.infra.testing.RealInfrastructure;
import java.util.ArrayList;
import java.util.List;
import org.springframework.context.ConfigurableApplicationContext;

/** A run-worker context on the shared test broker and Redis, with topics and group of its own. */
final class TestWorker {

    private TestWorker() {
    }

    /** Topics {@code commands.<suffix>} and {@code events.<suffix>}, group {@code workers.<suffix>}; more {@code --key=value} in {@code extra}. */
    static ConfigurableApplicationContext start(String suffix, String... extra) {
        List<String> args = new ArrayList<>(List.of(
                "--spring.kafka.bootstrap-servers=" + RealInfrastructure.kafkaBootstrapServers(),
                "--spring.data.redis.url=" + RealInfrastructure.redisUrl(),
                "--agentrun.kafka.commands-topic=commands." + suffix,
                "--agentrun.kafka.events-topic=events." + suffix,
                "--agentrun.kafka.worker-group=workers." + suffix,
                "--agentrun.worker.poll-timeout=100ms",
                "--server.port=0"));
        args.addAll(List.of(extra));
        return WorkerApplication.builder().run(args.toArray(String[]::new));
    }
}
